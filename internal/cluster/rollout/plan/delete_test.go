package plan

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
)

// midway drives a fresh rollout of 6 nodes over three zones to a moment
// at which it is stopped.
type midway struct {
	name string
	to   func(t *testing.T) *sim
}

// midways are the moments TestDeleteLeavesTheGroupAsAbort stops rollouts.
func midways() []midway {
	return []midway{
		{name: "ScalingUp, surge launching", to: func(t *testing.T) *sim {
			s := scaledUp(t, nil)
			launchingSurge(s)
			return s
		}},
		{name: "ScalingUp, surge in service, not Ready", to: func(t *testing.T) *sim {
			s := scaledUp(t, nil)
			for i := range s.nodes {
				if s.nodes[i].Labels[LabelSourceLaunchTemplateVersion] == "2" {
					s.nodes[i].Status.Conditions[0].Status = corev1.ConditionFalse
				}
			}
			return s
		}},
		{name: "Upgrading, drain refused by a budget", to: func(t *testing.T) *sim {
			s := newSim(t, newFixture(6, threeZones(), func(sp *rolloutv1.NodeGroupRolloutSpec) { sp.NodeOrder = rolloutv1.OrderName }))
			s.spreadPods(1)
			s.addPod("node-001", "db")
			s.addPDB("db", "db", 0, 1, 1, 1)
			s.runUntil(100, func() bool { return len(s.ro.Status.Nodes) > 0 && len(s.ro.Status.Nodes[0].Blockers) > 0 })
			return s
		}},
		{name: "Upgrading, second batch", to: func(t *testing.T) *sim {
			s := newSim(t, newFixture(6, threeZones(), func(sp *rolloutv1.NodeGroupRolloutSpec) { sp.MaxUnavailable = ptr.To(intstr.FromInt32(2)) }))
			s.spreadPods(1)
			s.runUntil(300, func() bool { return s.ro.Status.Batch == 2 })
			return s
		}},
		{name: "ScalingDown", to: func(t *testing.T) *sim {
			s := newSim(t, newFixture(6, threeZones(), nil))
			s.spreadPods(1)
			s.runUntil(3000, func() bool { return s.ro.Status.Phase == rolloutv1.PhaseScalingDown })
			return s
		}},
		{name: "Paused mid-drain", to: func(t *testing.T) *sim {
			s := newSim(t, newFixture(6, threeZones(), nil))
			s.spreadPods(1)
			s.runUntil(300, func() bool { return s.ro.Status.Batch == 2 })
			s.ro.Spec.Paused = true
			s.ro.Generation++
			s.runUntil(5, func() bool { return s.ro.Status.Phase == rolloutv1.PhasePaused })
			return s
		}},
		{name: "Failed, PodEvictionFailure", to: func(t *testing.T) *sim {
			s := newSim(t, newFixture(6, threeZones(), func(sp *rolloutv1.NodeGroupRolloutSpec) { sp.NodeOrder = rolloutv1.OrderName }))
			s.spreadPods(1)
			s.addPod("node-001", "db")
			s.addPDB("db", "db", 0, 1, 1, 1)
			s.run(3000)
			return s
		}},
	}
}

// launchingSurge puts the instances the surge added back to Pending,
// without Nodes, as right after the group's desired capacity was raised.
func launchingSurge(s *sim) {
	for i := range s.group.Instances {
		in := &s.group.Instances[i]
		if in.Version != "2" {
			continue
		}
		in.LifecycleState = nodegroup.LifecyclePending
		name := s.nodeOfInstance(in.ID).Name
		s.nodes = slices.DeleteFunc(s.nodes, func(n corev1.Node) bool { return n.Name == name })
	}
}

// stopped is what stopping a rollout left.
type stopped struct {
	group nodegroup.State
	// terminated counts the termination requests sent after the stop
	// (but those of nodes already terminating); old are the instances
	// of the old version at the stop.
	terminated map[string]int
	old        map[string]bool
	killed     []string
	marked     []string
	phase      rolloutv1.Phase
}

// stop aborts (or deletes) a rollout and runs it to its end.
func stop(t *testing.T, m midway, del bool) stopped {
	s := m.to(t)
	before := maps.Clone(s.terminations)
	inFlight := map[string]bool{}
	for _, p := range s.ro.Status.Nodes {
		if p.Step == rolloutv1.StepTerminating {
			inFlight[p.InstanceID] = true
		}
	}
	old := map[string]bool{}
	for _, in := range s.group.Instances {
		old[in.ID] = in.Version == "1"
	}
	s.killed = nil
	if del {
		s.ro.DeletionTimestamp = &metav1.Time{Time: s.now}
	} else {
		s.ro.Spec.Abort = true
		s.ro.Generation++
	}
	s.runUntil(3000, func() bool { return s.ro.Status.Phase.Terminal() })
	out := stopped{group: s.group, terminated: map[string]int{}, old: old, killed: s.killed, phase: s.ro.Status.Phase}
	for id, n := range s.terminations {
		if n > before[id] && !inFlight[id] {
			out.terminated[id] = n - before[id]
		}
	}
	for _, n := range s.nodes {
		if Touched(&n, s.ro.Name) || n.Spec.Unschedulable || n.Labels[LabelExcludeLB] != "" {
			out.marked = append(out.marked, n.Name)
		}
	}
	return out
}

// TestDeleteLeavesTheGroupAsAbort stops identical rollouts at each moment
// by deleting one and aborting the other: both end Aborted with the same
// group (sizes and launch template restored, the same instances), no node
// left marked, no pod killed undrained, and no old instance terminated
// after the request but the surplus the surge added, drained first.
func TestDeleteLeavesTheGroupAsAbort(t *testing.T) {
	for _, m := range midways() {
		t.Run(m.name, func(t *testing.T) {
			aborted, deleted := stop(t, m, false), stop(t, m, true)
			for _, got := range []stopped{aborted, deleted} {
				g := got.group
				if got.phase != rolloutv1.PhaseAborted || g.MinSize != 1 || g.MaxSize != 6 || g.Desired != 6 || len(g.Instances) != 6 || g.LaunchTemplate.Version != "1" {
					t.Errorf("%s, group %d/%d/%d, %d instances, version %s; want Aborted, 1/6/6, 6 instances, version 1",
						got.phase, g.MinSize, g.MaxSize, g.Desired, len(g.Instances), g.LaunchTemplate.Version)
				}
				if len(got.killed) > 0 || len(got.marked) > 0 {
					t.Errorf("pods killed undrained %v, nodes left marked %v", got.killed, got.marked)
				}
				for id := range got.terminated {
					if got.old[id] {
						t.Errorf("old instance %s terminated after the request", id)
					}
				}
			}
			if !slices.Equal(ids(aborted.group), ids(deleted.group)) || !maps.Equal(aborted.terminated, deleted.terminated) {
				t.Errorf("deleting left instances %v (terminated %v); aborting %v (terminated %v)",
					ids(deleted.group), deleted.terminated, ids(aborted.group), aborted.terminated)
			}
		})
	}
}

func ids(g nodegroup.State) []string {
	var out []string
	for _, in := range g.Instances {
		out = append(out, in.ID)
	}
	slices.Sort(out)
	return out
}

// TestAbortWithoutTheGroup: a rollout aborted or deleted once its group
// is gone ends Aborted, releasing the Nodes it marked that are still
// there, with no action on the group.
func TestAbortWithoutTheGroup(t *testing.T) {
	tests := []struct {
		name string
		// nodesLeft keeps the group's Nodes (instances detached, say).
		nodesLeft, del bool
		wantReleases   int
	}{
		{name: "deleted, Nodes gone with the group", del: true},
		{name: "deleted, Nodes left", del: true, nodesLeft: true, wantReleases: 6},
		{name: "aborted, Nodes left", nodesLeft: true, wantReleases: 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t, newFixture(6, threeZones(), nil))
			s.spreadPods(1)
			s.runUntil(300, func() bool { return s.ro.Status.Batch == 1 })
			s.group = nodegroup.State{}
			if !tc.nodesLeft {
				s.nodes = nil
			}
			if tc.del {
				s.ro.DeletionTimestamp = &metav1.Time{Time: s.now}
			} else {
				s.ro.Spec.Abort = true
				s.ro.Generation++
			}
			var releases []Release
			var others []Action
			var events []Event
			for step := 0; step < 3 && !s.ro.Status.Phase.Terminal(); step++ {
				snap := s.snapshot()
				snap.GroupGone = true
				d := Plan(snap)
				releases = append(releases, actionsOf[Release](d)...)
				others = append(others, slices.DeleteFunc(slices.Clone(d.Actions), func(a Action) bool { _, ok := a.(Release); return ok })...)
				events = append(events, d.Events...)
				s.ro.Status = d.Status
				s.apply(d)
			}
			d := Decision{Status: s.ro.Status, Events: events}
			mustPhase(t, d, rolloutv1.PhaseAborted)
			if len(releases) != tc.wantReleases || len(others) > 0 {
				t.Errorf("releases %v, other actions %v; want %d releases only", releases, others, tc.wantReleases)
			}
			if !strings.Contains(d.Status.Message, "Auto Scaling group workers no longer exists") || !hasEvent(d, "Aborted") {
				t.Errorf("message %q, events %v", d.Status.Message, events)
			}
			for _, p := range d.Status.Nodes {
				if inFlight(p.Step) {
					t.Errorf("node %s still %s", p.Name, p.Step)
				}
			}
		})
	}
}

// TestAbortOfAGroupMovedOffItsTemplate: a group moved to a launch
// configuration or a mixed instances policy mid-way (no launch template
// to read) is aborted without a launch-template change.
func TestAbortOfAGroupMovedOffItsTemplate(t *testing.T) {
	for _, del := range []bool{false, true} {
		t.Run(map[bool]string{false: "aborted", true: "deleted"}[del], func(t *testing.T) {
			s := newSim(t, newFixture(6, threeZones(), nil))
			s.runUntil(300, func() bool { return s.ro.Status.Batch == 1 })
			s.group.LaunchTemplate = nil
			if del {
				s.ro.DeletionTimestamp = &metav1.Time{Time: s.now}
			} else {
				s.ro.Spec.Abort = true
				s.ro.Generation++
			}
			for step := 0; step < 3000 && !s.ro.Status.Phase.Terminal(); step++ {
				d := s.plan()
				if lt := actionsOf[SetLaunchTemplate](d); len(lt) > 0 {
					t.Fatalf("abort set the launch template %v on a group without one", lt)
				}
				Record(&s.ro.Status, s.apply(d), s.now)
				s.now = s.now.Add(time.Second)
			}
			if st := s.ro.Status; st.Phase != rolloutv1.PhaseAborted || s.group.Desired != 6 || s.group.MaxSize != 6 {
				t.Errorf("%s, desired %d max %d; want Aborted, 6/6", st.Phase, s.group.Desired, s.group.MaxSize)
			}
		})
	}
}
