package generate

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ErrRefused is returned (wrapped) when the producer itself refuses the
// node group, so that it writes no user data for it.
var ErrRefused = errors.New("the producer refuses the node group")

// eksctlCriticalKubelet are the kubelet config fields eksctl refuses in
// kubeletExtraConfig, "as it's critical to eksctl functionality" (eksctl
// v0.215.0, validateNodeGroupKubeletExtraConfig).
var eksctlCriticalKubelet = []string{"kind", "apiVersion", "address", "clusterDomain", "authentication", "authorization", "serverTLSBootstrap"}

// eksctlRefusal is eksctl's validation of what becomes kubeletExtraConfig
// on Amazon Linux: every field it refuses, in one error.
func eksctlRefusal(in Input) error {
	if in.Producer != ProducerEksctl || (in.Family != FamilyAL2 && in.Family != FamilyAL2023) {
		return nil
	}
	var refused []string
	for _, k := range slices.Sorted(maps.Keys(in.Group.Spec.Kubelet.Config)) {
		if slices.Contains(eksctlCriticalKubelet, k) {
			refused = append(refused, "spec.kubelet.config."+k)
		}
	}
	if len(refused) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s: eksctl refuses to override these in kubeletExtraConfig (they are critical to how its nodes join)", ErrRefused, strings.Join(refused, ", "))
}
