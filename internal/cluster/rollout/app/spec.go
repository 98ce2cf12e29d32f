package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/admission"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

// specFlags are the flags that make a NodeGroupRolloutSpec (plan, start).
type specFlags struct {
	group, region, groupLabel   string
	version, imageID            string
	strategy, order, maxUnavail string
	force, noEKSLabels          bool
	labels                      []string
	drain, postDrain, creation  durationFlag
	evictionRetry               durationFlag
}

// durationFlag is a duration flag kept as written: the CRD's rule decides
// what it accepts, not time.ParseDuration (which also takes "+1s", ".5s"
// and "1h1m1s1ms1us", which the API server refuses), so that the command
// line refuses what the API server would, with its message.
type durationFlag string

func (d *durationFlag) String() string     { return string(*d) }
func (d *durationFlag) Set(s string) error { *d = durationFlag(s); return nil }
func (d *durationFlag) Type() string       { return "duration" }

// durationField is a duration flag and its field of spec.timeouts.
type durationField struct {
	name  string
	flag  durationFlag
	field **metav1.Duration
}

// durations pairs each duration flag with its field of t.
func (f *specFlags) durations(t *rolloutv1.Timeouts) []durationField {
	return []durationField{
		{"drain", f.drain, &t.Drain}, {"postDrainWait", f.postDrain, &t.PostDrainWait},
		{"nodeCreation", f.creation, &t.NodeCreation}, {"evictionRetryInterval", f.evictionRetry, &t.EvictionRetryInterval},
	}
}

func (f *specFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.group, "group", "", "Auto Scaling group name (required)")
	fs.StringVar(&f.region, "region", "", "the group's AWS region (default: the environment's)")
	fs.StringVar(&f.groupLabel, "nodegroup-label", "", "value new nodes carry in eks.amazonaws.com/nodegroup (default: the group name)")
	fs.StringVar(&f.version, "launch-template-version", "", "target version: a number, $Latest or $Default (default: the group's current)")
	fs.StringVar(&f.imageID, "image-id", "", "create the target version from the group's current one with this AMI")
	fs.StringVar(&f.strategy, "strategy", string(rolloutv1.StrategyDefault), "Default (surge first) or Minimal (no surge)")
	fs.StringVar(&f.maxUnavail, "max-unavailable", "1", "nodes replaced at once: a count or a percentage of the group (1..100, 1%..100%)")
	fs.StringVar(&f.order, "order", string(rolloutv1.OrderRandom), "node order: Random, Oldest, Newest or Name")
	fs.BoolVar(&f.force, "force", false, "delete pods still blocking after the drain timeout instead of failing")
	fs.BoolVar(&f.noEKSLabels, "no-eks-labels", false, "do not require the eks.amazonaws.com/nodegroup and sourceLaunchTemplate labels on new nodes")
	fs.StringArrayVar(&f.labels, "node-label", nil, "KEY=VALUE every new node must carry (repeatable)")
	durationVar(fs, &f.drain, "drain-timeout", plan.DefaultDrainTimeout, "how long one node may take to drain")
	durationVar(fs, &f.postDrain, "post-drain-wait", plan.DefaultPostDrainWait, "wait between a node's last pod leaving and its termination")
	durationVar(fs, &f.creation, "node-creation-timeout", plan.DefaultNodeCreationTimeout, "how long new capacity may take to be Ready")
	durationVar(fs, &f.evictionRetry, "eviction-retry-interval", plan.DefaultEvictionRetryInterval, "pause before a refused eviction is retried")
}

// durationVar defines a duration flag kept as written, default def.
func durationVar(fs *pflag.FlagSet, d *durationFlag, name string, def time.Duration, usage string) {
	*d = durationFlag(def.String())
	fs.Var(d, name, usage)
}

// rollout builds the NodeGroupRollout the flags describe, named name, and
// checks it as the API server will (package admission), with the
// durations as written, so that what the API server would refuse is
// refused here first, with its own message.
func (f *specFlags) rollout(ctx context.Context, name string) (*rolloutv1.NodeGroupRollout, error) {
	labels, problems := f.nodeLabels()
	if f.group == "" {
		problems = append(problems, "--group is required")
	}
	ro := &rolloutv1.NodeGroupRollout{
		TypeMeta:   metav1.TypeMeta{APIVersion: rolloutv1.SchemeGroupVersion.String(), Kind: rolloutv1.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       f.spec(labels),
	}
	checker, err := admission.Default()
	if err != nil {
		return nil, err
	}
	u, err := f.object(ro)
	if err != nil {
		return nil, err
	}
	if err := checker.CheckObject(ctx, u); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrUsage, strings.Join(problems, "; "))
	}
	if err := f.setTimeouts(&ro.Spec.Timeouts); err != nil {
		return nil, err
	}
	return ro, nil
}

// object is ro as JSON data, with the duration flags as written in
// spec.timeouts.
func (f *specFlags) object(ro *rolloutv1.NodeGroupRollout) (*unstructured.Unstructured, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ro)
	if err != nil {
		return nil, fmt.Errorf("convert rollout %s: %w", ro.Name, err)
	}
	timeouts := map[string]any{}
	for _, d := range f.durations(&ro.Spec.Timeouts) {
		timeouts[d.name] = string(d.flag)
	}
	u := &unstructured.Unstructured{Object: content}
	return u, unstructured.SetNestedMap(u.Object, timeouts, "spec", "timeouts")
}

// setTimeouts sets t from the duration flags, which the CRD's rule
// accepted, and so time.ParseDuration too.
func (f *specFlags) setTimeouts(t *rolloutv1.Timeouts) error {
	for _, d := range f.durations(t) {
		v, err := time.ParseDuration(string(d.flag))
		if err != nil {
			return fmt.Errorf("%w: --%s: %w", ErrUsage, d.name, err)
		}
		*d.field = &metav1.Duration{Duration: v}
	}
	return nil
}

// nodeLabels parses --node-label KEY=VALUE flags; the keys and values are
// checked with the rest of the rollout.
func (f *specFlags) nodeLabels() (map[string]rolloutv1.LabelValue, []string) {
	var problems []string
	labels := map[string]rolloutv1.LabelValue{}
	for _, l := range f.labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			problems = append(problems, fmt.Sprintf("--node-label %q is not KEY=VALUE", l))
		}
		labels[k] = rolloutv1.LabelValue(v)
	}
	return labels, problems
}

// spec is the NodeGroupRolloutSpec of the flags, as given, but for the
// timeouts (rollout sets them once they are checked).
func (f *specFlags) spec(labels map[string]rolloutv1.LabelValue) rolloutv1.NodeGroupRolloutSpec {
	mu := intstr.Parse(f.maxUnavail)
	spec := rolloutv1.NodeGroupRolloutSpec{
		NodeGroup:             rolloutv1.NodeGroupReference{AutoScalingGroupName: f.group, Region: f.region, Name: f.groupLabel},
		LaunchTemplateVersion: f.version,
		ImageID:               f.imageID,
		Strategy:              rolloutv1.Strategy(f.strategy),
		MaxUnavailable:        &mu,
		NodeOrder:             rolloutv1.NodeOrder(f.order),
		Force:                 f.force,
	}
	if f.noEKSLabels {
		spec.NewNodes.EKSLabels = ptr.To(false)
	}
	if len(labels) > 0 {
		spec.NewNodes.Labels = labels
	}
	return spec
}
