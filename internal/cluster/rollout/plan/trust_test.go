package plan

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
)

// blockedDrain returns a sim whose first batch drains node-001, held by a
// budget that allows no disruption: the status is the controller's own.
func blockedDrain(t *testing.T) *sim {
	s, _ := draining(t, nil, func(f *fixture, node string) {
		f.addPod(node, "db")
		f.addPDB("db", "db", 0, 1, 1, 1)
	})
	return s
}

func at(t time.Time) *metav1.Time { return &metav1.Time{Time: t} }

// TestUntrustedStatus: a status the controller never writes (edited
// through the status subresource, left by an older controller) is reported
// on the rollout and not acted on. Without the check each of these
// panicked, hot-looped, or did harm.
func TestUntrustedStatus(t *testing.T) {
	tests := []struct {
		name string
		edit func(s *sim)
		want string
	}{
		// Was: a nil dereference on every step.
		{name: "original missing while upgrading", want: "status.original is missing in phase Upgrading",
			edit: func(s *sim) { s.ro.Status.Original = nil }},
		{name: "target missing while upgrading", want: "status.target is missing in phase Upgrading",
			edit: func(s *sim) { s.ro.Status.Target = nil }},
		{name: "target missing while scaling down", want: "status.target is missing in phase ScalingDown",
			edit: func(s *sim) { s.ro.Status.Phase, s.ro.Status.Target = rolloutv1.PhaseScalingDown, nil }},
		{name: "original missing while scaling up", want: "status.original is missing in phase ScalingUp",
			edit: func(s *sim) { s.ro.Status.Phase, s.ro.Status.Original = rolloutv1.PhaseScalingUp, nil }},
		{name: "draining without a deadline", want: "status.nodes[i-001] is Draining without drainDeadline",
			edit: func(s *sim) { s.ro.Status.Nodes[0].DrainDeadline = nil }},
		{name: "waiting after drain without drainedTime", want: "is WaitingAfterDrain without drainedTime", edit: func(s *sim) {
			s.ro.Status.Nodes[0].Step, s.ro.Status.Nodes[0].DrainedTime = rolloutv1.StepWaitingAfterDrain, nil
		}},
		{name: "terminating without terminationTime", want: "is Terminating without terminationTime", edit: func(s *sim) {
			s.ro.Status.Nodes[0].Step, s.ro.Status.Nodes[0].TerminationTime = rolloutv1.StepTerminating, nil
		}},
		// Was: every node, new ones too, replaced again and again.
		{name: "target version not a number", want: `status.target is launch template "lt-1" version "abc"`,
			edit: func(s *sim) { s.ro.Status.Target.Version = "abc" }},
		// Was: an empty batch started on every step (a status write and
		// an Event each), or a slice out of range, or 1,000 at once.
		{name: "maxUnavailable 0 while upgrading", want: "status.maxUnavailable 0 in phase Upgrading",
			edit: func(s *sim) { s.ro.Status.MaxUnavailable = 0 }},
		{name: "maxUnavailable negative", want: "status.maxUnavailable -3 is not from 1 to 100",
			edit: func(s *sim) { s.ro.Status.MaxUnavailable = -3 }},
		{name: "maxUnavailable above the cap", want: "status.maxUnavailable 1000 is not from 1 to 100",
			edit: func(s *sim) { s.ro.Status.MaxUnavailable = 1000 }},
		// Was: desired capacity raised by 1,000.
		{name: "surge above the cap", want: "status.surge 1000 is not from 0 to 100",
			edit: func(s *sim) { s.ro.Status.Phase, s.ro.Status.Surge = rolloutv1.PhaseScalingUp, 1000 }},
		{name: "negative surge", want: "status.surge -2 is not from 0 to 100",
			edit: func(s *sim) { s.ro.Status.Surge = -2 }},
		// Was: the next batch numbered 0, the abort's surplus batch.
		{name: "negative batch", want: "status.batch -1 is below 0",
			edit: func(s *sim) { s.ro.Status.Batch = -1 }},
		{name: "node beyond the current batch", want: "status.nodes[i-001].batch 7 is not from 0 to status.batch 1",
			edit: func(s *sim) { s.ro.Status.Nodes[0].Batch = 7 }},
		{name: "surplus batch outside an abort", want: "status.nodes[i-001].batch 0 (the abort's surplus nodes) in phase Upgrading",
			edit: func(s *sim) { s.ro.Status.Nodes[0].Batch = 0 }},
		{name: "original sizes out of order", want: "status.original sizes min 5, desired 3, max 3",
			edit: func(s *sim) { s.ro.Status.Original.MinSize = 5 }},
		// Was, with force: the pods deleted past their budgets at once.
		{name: "drain deadline in 1970 with force", want: "drainDeadline 1970-01-01T00:00:00Z is before the rollout was created", edit: func(s *sim) {
			s.ro.Spec.Force = true
			s.ro.Status.Nodes[0].DrainDeadline = at(time.Unix(0, 0))
		}},
		{name: "pause begun in 2090, resumed with force", want: "status.pausedTime 2090-01-01T00:00:00Z lies ahead", edit: func(s *sim) {
			s.ro.Spec.Force = true
			s.ro.Status.Phase, s.ro.Status.ResumePhase = rolloutv1.PhasePaused, rolloutv1.PhaseUpgrading
			s.ro.Status.PausedTime = at(time.Date(2090, 1, 1, 0, 0, 0, 0, time.UTC))
		}},
		{name: "last eviction in the future with force", want: "lastEvictionTime 2090-01-01T00:00:00Z lies ahead", edit: func(s *sim) {
			s.ro.Spec.Force = true
			s.ro.Status.Nodes[0].LastEvictionTime = at(time.Date(2090, 1, 1, 0, 0, 0, 0, time.UTC))
		}},
		// Was: the deadline moved past year 9999, which the API server
		// refuses to store: every status write failed.
		{name: "pause begun in year 1, deadline in 9999", want: "drainDeadline 9999-01-01T00:00:00Z lies ahead", edit: func(s *sim) {
			s.ro.Status.Phase, s.ro.Status.ResumePhase = rolloutv1.PhasePaused, rolloutv1.PhaseUpgrading
			s.ro.Status.PausedTime = at(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC))
			s.ro.Status.Nodes[0].DrainDeadline = at(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC))
		}},
		{name: "drain deadline beyond the longest timeout", want: "drainDeadline 2090-01-01T00:00:00Z lies ahead",
			edit: func(s *sim) { s.ro.Status.Nodes[0].DrainDeadline = at(time.Date(2090, 1, 1, 0, 0, 0, 0, time.UTC)) }},
		// Was: Succeeded, with the group still surged and nodes cordoned.
		{name: "failed rollout resuming to Succeeded", want: "status.resumePhase Succeeded is no phase a rollout resumes to", edit: func(s *sim) {
			s.ro.Status.Phase, s.ro.Status.ResumePhase = rolloutv1.PhaseFailed, rolloutv1.PhaseSucceeded
			s.ro.Generation++
		}},
		{name: "resumePhase on a running rollout", want: "status.resumePhase ScalingUp with status.phase Upgrading",
			edit: func(s *sim) { s.ro.Status.ResumePhase = rolloutv1.PhaseScalingUp }},
		// Was: an abort (final) nobody asked for.
		{name: "aborting without spec.abort", want: "status.phase Aborting without spec.abort",
			edit: func(s *sim) { s.ro.Status.Phase = rolloutv1.PhaseAborting }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := blockedDrain(t)
			tc.edit(s)
			before := s.ro.Status.DeepCopy()
			d := s.plan()
			if len(d.Actions) != 0 {
				t.Errorf("actions %v on an untrusted status", d.Actions)
			}
			c := meta.FindStatusCondition(d.Status.Conditions, rolloutv1.ConditionDegraded)
			if c == nil || c.Status != metav1.ConditionTrue || c.Reason != rolloutv1.ReasonInvalidStatus || !strings.Contains(c.Message, tc.want) {
				t.Fatalf("Degraded %+v, want True, InvalidStatus, naming %q", c, tc.want)
			}
			if len(d.Events) != 1 || d.Events[0].Reason != rolloutv1.ReasonInvalidStatus || !d.Events[0].Warning {
				t.Errorf("events %+v, want one InvalidStatus warning", d.Events)
			}
			if d.Status.Phase != before.Phase || d.Status.Batch != before.Batch || len(d.Status.Nodes) != len(before.Nodes) {
				t.Errorf("status moved on: phase %s batch %d", d.Status.Phase, d.Status.Batch)
			}
			s.now = s.now.Add(time.Minute)
			if again := s.plan(); len(again.Events) != 0 || len(again.Actions) != 0 {
				t.Errorf("second step: events %+v actions %v, want the report once", again.Events, again.Actions)
			}
		})
	}
}

// TestUntrustedStatusFixed: once the status is fixed the rollout goes on.
func TestUntrustedStatusFixed(t *testing.T) {
	s := blockedDrain(t)
	good := s.ro.Status.MaxUnavailable
	s.ro.Status.MaxUnavailable = 0
	s.plan()
	s.ro.Status.MaxUnavailable = good
	d := s.plan()
	mustPhase(t, d, rolloutv1.PhaseUpgrading)
	if c := meta.FindStatusCondition(d.Status.Conditions, rolloutv1.ConditionDegraded); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("Degraded %+v after the fix, want False", c)
	}
}

// TestGroupLaunchesAnotherVersion: a group pointed at another version
// mid-rollout (or a status naming a target the group never had) fails the
// rollout instead of replacing the nodes it launches without end; a spec
// change points the group back at the target and goes on.
func TestGroupLaunchesAnotherVersion(t *testing.T) {
	for _, phase := range []rolloutv1.Phase{rolloutv1.PhaseUpgrading, rolloutv1.PhaseScalingUp} {
		t.Run(string(phase), func(t *testing.T) {
			s := blockedDrain(t)
			s.ro.Status.Phase = phase
			s.group.LaunchTemplate.Version = "3"
			d := s.plan()
			mustPhase(t, d, rolloutv1.PhaseFailed)
			if d.Status.Failure.Code != rolloutv1.LaunchTemplateError || !strings.Contains(d.Status.Failure.Message, "version 3, not the target lt-1 version 2") {
				t.Errorf("failure %+v", d.Status.Failure)
			}
			if len(d.Actions) != 0 {
				t.Errorf("actions %v", d.Actions)
			}
			s.ro.Spec.Force = true
			s.ro.Generation++
			d = s.plan()
			if got := actionsOf[SetLaunchTemplate](d); len(got) != 1 || got[0].Template.Version != "2" || d.Status.Phase == rolloutv1.PhaseFailed {
				t.Errorf("retry: phase %s actions %v, want the group pointed back at version 2", d.Status.Phase, d.Actions)
			}
		})
	}
}
