package plan

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
)

// Defaults of the spec, managed node groups' values.
const (
	DefaultDrainTimeout          = 15 * time.Minute
	DefaultPostDrainWait         = 60 * time.Second
	DefaultNodeCreationTimeout   = 15 * time.Minute
	DefaultEvictionRetryInterval = 5 * time.Second
	DefaultMaxUnavailable        = 1
	// MaxUnavailableCap is managed node groups' limit on parallel nodes.
	MaxUnavailableCap = 100
)

// Settings is a spec with every default applied.
type Settings struct {
	Strategy              rolloutv1.Strategy
	Order                 rolloutv1.NodeOrder
	MaxUnavailable        intstr.IntOrString
	Force, Paused, Abort  bool
	DrainTimeout          time.Duration
	PostDrainWait         time.Duration
	NodeCreationTimeout   time.Duration
	EvictionRetryInterval time.Duration
	EKSLabels             bool
	Labels                map[string]string
	// GroupLabel is the value new nodes carry in eks.amazonaws.com/nodegroup.
	GroupLabel string
}

// SettingsOf applies the defaults to spec.
func SettingsOf(spec rolloutv1.NodeGroupRolloutSpec) Settings {
	s := Settings{
		Strategy:              spec.Strategy,
		Order:                 spec.NodeOrder,
		MaxUnavailable:        intstr.FromInt32(DefaultMaxUnavailable),
		Force:                 spec.Force,
		Paused:                spec.Paused,
		Abort:                 spec.Abort,
		DrainTimeout:          durationOr(spec.Timeouts.Drain, DefaultDrainTimeout),
		PostDrainWait:         durationOr(spec.Timeouts.PostDrainWait, DefaultPostDrainWait),
		NodeCreationTimeout:   durationOr(spec.Timeouts.NodeCreation, DefaultNodeCreationTimeout),
		EvictionRetryInterval: durationOr(spec.Timeouts.EvictionRetryInterval, DefaultEvictionRetryInterval),
		EKSLabels:             spec.NewNodes.EKSLabels == nil || *spec.NewNodes.EKSLabels,
		Labels:                labelsOf(spec.NewNodes.Labels),
		GroupLabel:            spec.NodeGroup.Name,
	}
	if s.Strategy == "" {
		s.Strategy = rolloutv1.StrategyDefault
	}
	if s.Order == "" {
		s.Order = rolloutv1.OrderRandom
	}
	if spec.MaxUnavailable != nil {
		s.MaxUnavailable = *spec.MaxUnavailable
	}
	if s.GroupLabel == "" {
		s.GroupLabel = spec.NodeGroup.AutoScalingGroupName
	}
	return s
}

// labelsOf returns labels as plain strings.
func labelsOf(labels map[string]rolloutv1.LabelValue) map[string]string {
	if labels == nil {
		return nil
	}
	out := make(map[string]string, len(labels))
	for k, v := range labels {
		out[k] = string(v)
	}
	return out
}

// settingsOf is SettingsOf the rollout's spec, aborting once it is being
// deleted.
func settingsOf(ro *rolloutv1.NodeGroupRollout) Settings {
	s := SettingsOf(ro.Spec)
	s.Abort = s.Abort || ro.DeletionTimestamp != nil
	return s
}

// durationOr returns d, def when d is unset; a negative d counts as 0.
func durationOr(d *metav1.Duration, def time.Duration) time.Duration {
	if d == nil {
		return def
	}
	return max(d.Duration, 0)
}

// ResolveMaxUnavailable turns maxUnavailable into a node count: a count as
// given, a percentage of groupSize rounded down; at least 1, at most
// MaxUnavailableCap.
func ResolveMaxUnavailable(v intstr.IntOrString, groupSize int32) (int32, error) {
	if v.Type == intstr.String {
		p, err := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
		if err != nil || !strings.HasSuffix(v.StrVal, "%") || p < 1 || p > 100 {
			return 0, fmt.Errorf("maxUnavailable %q is not a percentage from 1%% to 100%%", v.StrVal)
		}
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(&v, int(groupSize), false)
	if err != nil {
		return 0, fmt.Errorf("maxUnavailable %s: %w", v.String(), err)
	}
	if v.Type == intstr.Int && n < 1 {
		return 0, fmt.Errorf("maxUnavailable %d is below 1", n)
	}
	return int32(min(max(n, 1), MaxUnavailableCap)), nil
}
