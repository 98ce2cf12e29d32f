package plan

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

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
		for _, lazy := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, pods looked up %t", tc.name, lazy), func(t *testing.T) {
				s := newSim(t, newFixture(tc.nodes, threeZones(), tc.spec))
				s.lazyPods = lazy
				s.spreadPods(2)
				s.run(5000)
				s.checkSucceeded(int32(tc.nodes))
				if s.minInService < tc.minInService {
					t.Errorf("in-service instances fell to %d, want at least %d", s.minInService, tc.minInService)
				}
			})
		}
	}
}

// TestPodsLookedUp checks that a step given Snapshot.PodsOn decides as one
// given every pod, asking only for the Nodes it drains, once each.
func TestPodsLookedUp(t *testing.T) {
	s := scaledUp(t, func(sp *rolloutv1.NodeGroupRolloutSpec) { sp.MaxUnavailable = ptr.To(intstr.FromInt32(2)) })
	s.spreadPods(2)
	looked := 0
	for step := 0; step < 6; step++ {
		snap := s.snapshot()
		asked := map[string]int{}
		lazy := snap
		lazy.Pods = nil
		lazy.PodsOn = func(node string) []corev1.Pod {
			asked[node]++
			var out []corev1.Pod
			for _, p := range snap.Pods {
				if p.Spec.NodeName == node {
					out = append(out, p)
				}
			}
			return out
		}
		want, got := Plan(snap), Plan(lazy)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: with PodsOn\n%+v\nwithout\n%+v", step, got, want)
		}
		for node, n := range asked {
			if n != 1 || !slices.ContainsFunc(got.Status.Nodes, func(p rolloutv1.NodeProgress) bool { return p.Name == node }) {
				t.Errorf("step %d: pods of %s asked %d times; want once, and only for the nodes in flight %+v", step, node, n, got.Status.Nodes)
			}
		}
		looked += len(asked)
		s.ro.Status = want.Status
		Record(&s.ro.Status, s.apply(want), s.now)
		s.now = s.now.Add(100 * time.Millisecond)
	}
	if looked == 0 {
		t.Error("no pods looked up: the steps drained nothing")
	}
}
