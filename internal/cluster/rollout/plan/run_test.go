package plan

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
)

// TestRolloutsRunToCompletion drives whole rollouts through the simulator
// and checks the end state: every instance at the target, sizes restored,
// no pod killed undrained, one termination per instance, capacity kept.
func TestRolloutsRunToCompletion(t *testing.T) {
	tests := []struct {
		name  string
		nodes int
		spec  func(*rolloutv1.NodeGroupRolloutSpec)
		// minInService is the least number of instances allowed at any time.
		minInService int
	}{
		{name: "default strategy, one at a time", nodes: 30, minInService: 30},
		{name: "default strategy, 3 at a time", nodes: 30, minInService: 30,
			spec: func(s *rolloutv1.NodeGroupRolloutSpec) { s.MaxUnavailable = ptr.To(intstr.FromInt32(3)) }},
		{name: "default strategy, 20 percent", nodes: 30, minInService: 30,
			spec: func(s *rolloutv1.NodeGroupRolloutSpec) { s.MaxUnavailable = ptr.To(intstr.FromString("20%")) }},
		{name: "surge larger than the group", nodes: 4, minInService: 4,
			spec: func(s *rolloutv1.NodeGroupRolloutSpec) { s.MaxUnavailable = ptr.To(intstr.FromInt32(10)) }},
		{name: "minimal strategy", nodes: 9, minInService: 9 - 2,
			spec: func(s *rolloutv1.NodeGroupRolloutSpec) {
				s.Strategy = rolloutv1.StrategyMinimal
				s.MaxUnavailable = ptr.To(intstr.FromInt32(2))
			}},
		{name: "image ID creates the version", nodes: 6, minInService: 6,
			spec: func(s *rolloutv1.NodeGroupRolloutSpec) {
				s.LaunchTemplateVersion, s.ImageID = "", "ami-0123456789abcdef0"
			}},
		{name: "latest version", nodes: 6, minInService: 6,
			spec: func(s *rolloutv1.NodeGroupRolloutSpec) { s.LaunchTemplateVersion = "$Latest" }},
		{name: "oldest first", nodes: 6, minInService: 6,
			spec: func(s *rolloutv1.NodeGroupRolloutSpec) { s.NodeOrder = rolloutv1.OrderOldest }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t, newFixture(tc.nodes, threeZones(), tc.spec))
			s.spreadPods(2)
			s.run(5000)
			s.checkSucceeded(int32(tc.nodes))
			if s.minInService < tc.minInService {
				t.Errorf("in-service instances fell to %d, want at least %d", s.minInService, tc.minInService)
			}
		})
	}
}
