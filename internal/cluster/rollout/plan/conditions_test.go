package plan

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
)

// conditionsOf is Ready, Progressing, Degraded as status/reason.
func conditionsOf(st rolloutv1.NodeGroupRolloutStatus) [3]string {
	var out [3]string
	for i, typ := range []string{rolloutv1.ConditionReady, rolloutv1.ConditionProgressing, rolloutv1.ConditionDegraded} {
		if c := meta.FindStatusCondition(st.Conditions, typ); c != nil {
			out[i] = string(c.Status) + "/" + c.Reason
		}
	}
	return out
}

// TestConditionsThroughAWholeRollout follows the conditions of a rollout
// from its first step to Succeeded: every phase shows in them, and a
// condition's transition time moves only when its status changes.
func TestConditionsThroughAWholeRollout(t *testing.T) {
	s := newSim(t, newFixture(6, threeZones(), func(sp *rolloutv1.NodeGroupRolloutSpec) {
		sp.MaxUnavailable = ptr.To(intstr.FromInt32(2))
	}))
	s.spreadPods(1)
	seen := map[[3]string]bool{}
	var progressingSince metav1.Time
	s.runUntil(500, func() bool {
		st := s.ro.Status
		got := conditionsOf(st)
		seen[got] = true
		if c := meta.FindStatusCondition(st.Conditions, rolloutv1.ConditionProgressing); c != nil && c.Status == metav1.ConditionTrue {
			if progressingSince.IsZero() {
				progressingSince = c.LastTransitionTime
			} else if !c.LastTransitionTime.Equal(&progressingSince) {
				t.Errorf("Progressing moved its transition time from %s to %s without changing status", progressingSince, c.LastTransitionTime)
			}
		}
		return st.Phase.Terminal()
	})
	for _, want := range [][3]string{
		{"False/Upgrading", "True/Upgrading", "False/AsExpected"},
		{"False/ScalingUp", "True/ScalingUp", "False/AsExpected"},
		{"True/Succeeded", "False/Succeeded", "False/AsExpected"},
	} {
		if !seen[want] {
			t.Errorf("conditions %v never seen; seen %v", want, seen)
		}
	}
	for _, c := range s.ro.Status.Conditions {
		if c.ObservedGeneration != s.ro.Generation || c.Message == "" && c.Type != rolloutv1.ConditionDegraded {
			t.Errorf("condition %+v: want generation %d and a message", c, s.ro.Generation)
		}
	}
}

func TestConditionsOfAFailureAndAPause(t *testing.T) {
	s, _ := draining(t, func(sp *rolloutv1.NodeGroupRolloutSpec) {
		sp.Timeouts.Drain = &metav1.Duration{Duration: time.Minute}
	}, func(f *fixture, node string) {
		f.addPod(node, "db")
		f.addPDB("db", "db", 0, 1, 1, 1)
	})
	s.ro.Spec.Paused = true
	s.ro.Generation++
	if got, want := conditionsOf(s.plan().Status), [3]string{"False/Paused", "False/Paused", "False/AsExpected"}; got != want {
		t.Errorf("paused: conditions %v, want %v", got, want)
	}
	s.ro.Spec.Paused = false
	s.ro.Generation++
	s.run(100)
	d := s.plan()
	want := [3]string{"False/PodEvictionFailure", "False/PodEvictionFailure", "True/PodEvictionFailure"}
	if got := conditionsOf(d.Status); got != want {
		t.Fatalf("failed: conditions %v, want %v", got, want)
	}
	if c := meta.FindStatusCondition(d.Status.Conditions, rolloutv1.ConditionDegraded); c.Message != d.Status.Failure.Message {
		t.Errorf("Degraded message %q, want the failure's %q", c.Message, d.Status.Failure.Message)
	}
}

// TestDeletionAborts: a rollout being deleted runs the abort path, from an
// active phase and from a failure, and ends Aborted with the group as an
// abort leaves it.
func TestDeletionAborts(t *testing.T) {
	for _, failed := range []bool{false, true} {
		name := "while upgrading"
		if failed {
			name = "after a failure"
		}
		t.Run(name, func(t *testing.T) {
			s := newSim(t, newFixture(6, threeZones(), func(sp *rolloutv1.NodeGroupRolloutSpec) {
				sp.MaxUnavailable = ptr.To(intstr.FromInt32(2))
				sp.Timeouts.Drain = &metav1.Duration{Duration: time.Minute}
			}))
			s.spreadPods(1)
			s.runUntil(200, func() bool { return s.ro.Status.Batch == 2 })
			if failed {
				blocked := s.ro.Status.Nodes[len(s.ro.Status.Nodes)-1].Name
				s.addPod(blocked, "db", withLabels("app", "db"))
				s.addPDB("db", "db", 0, 1, 1, 1)
				s.run(200)
				mustPhase(t, Decision{Status: s.ro.Status}, rolloutv1.PhaseFailed)
			}
			originalLT := s.ro.Status.Original.LaunchTemplate.Version
			s.ro.DeletionTimestamp = &metav1.Time{Time: s.now}
			d := s.plan()
			if !hasEvent(d, "Aborting") || d.Status.Phase != rolloutv1.PhaseAborting {
				t.Fatalf("first step after the deletion: phase %s, events %v", d.Status.Phase, d.Events)
			}
			s.run(500)
			if s.ro.Status.Phase != rolloutv1.PhaseAborted {
				t.Fatalf("phase %s: %s", s.ro.Status.Phase, s.ro.Status.Message)
			}
			if s.group.LaunchTemplate.Version != originalLT || s.group.Desired != 6 || s.group.MaxSize != 6 {
				t.Errorf("group %+v not restored", s.group)
			}
			for _, n := range s.nodes {
				if n.Spec.Unschedulable || len(n.Spec.Taints) > 0 {
					t.Errorf("node %s still marked", n.Name)
				}
			}
		})
	}
}
