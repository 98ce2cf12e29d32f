package plan

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
)

func TestSurge(t *testing.T) {
	tests := []struct {
		name                 string
		zones, outdated      int
		maxUnavailable, want int32
	}{
		{name: "twice the zones", zones: 3, outdated: 30, maxUnavailable: 1, want: 6},
		{name: "five zones, max unavailable 1 (AWS example)", zones: 5, outdated: 50, maxUnavailable: 1, want: 10},
		{name: "max unavailable above twice the zones (AWS example)", zones: 5, outdated: 50, maxUnavailable: 20, want: 20},
		{name: "capped at the outdated nodes", zones: 3, outdated: 4, maxUnavailable: 10, want: 4},
		{name: "at least one per zone", zones: 3, outdated: 2, maxUnavailable: 1, want: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Surge(tc.zones, tc.maxUnavailable, tc.outdated); got != tc.want {
				t.Errorf("Surge(%d zones, maxUnavailable %d, %d outdated) = %d, want %d", tc.zones, tc.maxUnavailable, tc.outdated, got, tc.want)
			}
		})
	}
}

func TestResolveMaxUnavailable(t *testing.T) {
	tests := []struct {
		name    string
		value   intstr.IntOrString
		size    int32
		want    int32
		wantErr bool
	}{
		{name: "count", value: intstr.FromInt32(3), size: 30, want: 3},
		{name: "percentage rounds down", value: intstr.FromString("25%"), size: 30, want: 7},
		{name: "percentage at least one", value: intstr.FromString("1%"), size: 30, want: 1},
		{name: "capped at 100 nodes", value: intstr.FromString("50%"), size: 500, want: 100},
		{name: "count capped at 100", value: intstr.FromInt32(150), size: 500, want: 100},
		{name: "zero count", value: intstr.FromInt32(0), size: 30, wantErr: true},
		{name: "not a percentage", value: intstr.FromString("half"), size: 30, wantErr: true},
		{name: "percentage above 100", value: intstr.FromString("150%"), size: 30, wantErr: true},
		{name: "zero percent", value: intstr.FromString("0%"), size: 30, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolveMaxUnavailable(tc.value, tc.size)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("ResolveMaxUnavailable(%s, %d) = %d, %v; want %d, error %t", tc.value.String(), tc.size, got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestSettingsDefaults(t *testing.T) {
	s := SettingsOf(rolloutv1.NodeGroupRolloutSpec{NodeGroup: rolloutv1.NodeGroupReference{AutoScalingGroupName: "asg"}})
	if s.DrainTimeout != 15*time.Minute || s.PostDrainWait != time.Minute || s.NodeCreationTimeout != 15*time.Minute ||
		s.EvictionRetryInterval != 5*time.Second || s.Strategy != rolloutv1.StrategyDefault || s.Order != rolloutv1.OrderRandom ||
		s.MaxUnavailable.IntValue() != 1 || !s.EKSLabels || s.GroupLabel != "asg" {
		t.Errorf("defaults = %+v, want the managed-node-group values", s)
	}
	zero := &metav1.Duration{}
	s = SettingsOf(rolloutv1.NodeGroupRolloutSpec{Timeouts: rolloutv1.Timeouts{PostDrainWait: zero, EvictionRetryInterval: &metav1.Duration{Duration: -time.Second}}})
	if s.PostDrainWait != 0 || s.EvictionRetryInterval != 0 {
		t.Errorf("explicit zero and negative durations = %s, %s; want 0, 0", s.PostDrainWait, s.EvictionRetryInterval)
	}
}

func TestInitialize(t *testing.T) {
	tests := []struct {
		name       string
		spec       func(*rolloutv1.NodeGroupRolloutSpec)
		check      func(t *testing.T, f *fixture, d Decision)
		noTemplate bool
	}{
		{
			name: "numeric version: target, group pointed at it, outdated nodes tainted",
			check: func(t *testing.T, f *fixture, d Decision) {
				st := d.Status
				if st.Target == nil || st.Target.Version != "2" || st.Original == nil || st.Original.DesiredCapacity != 6 || st.Original.LaunchTemplate.Version != "1" {
					t.Errorf("target %+v original %+v", st.Target, st.Original)
				}
				if got := actionsOf[SetLaunchTemplate](d); len(got) != 1 || got[0].Template.Version != "2" {
					t.Errorf("SetLaunchTemplate actions = %v", got)
				}
				if got := actionsOf[MarkOld](d); len(got) != 6 {
					t.Errorf("%d MarkOld actions, want 6", len(got))
				}
				if st.NodesTotal != 6 || st.MaxUnavailable != 1 || st.StartTime == nil || !hasEvent(d, "Started") {
					t.Errorf("status %+v", st)
				}
			},
		},
		{
			name: "symbolic version is resolved first",
			spec: func(s *rolloutv1.NodeGroupRolloutSpec) { s.LaunchTemplateVersion = "$Latest" },
			check: func(t *testing.T, f *fixture, d Decision) {
				if got := actionsOf[ResolveTarget](d); len(got) != 1 || got[0].Version != "$Latest" || d.Status.Target != nil {
					t.Errorf("actions %v target %+v; want one ResolveTarget and no target yet", d.Actions, d.Status.Target)
				}
			},
		},
		{
			name: "image ID creates a version from the group's with a per-rollout token",
			spec: func(s *rolloutv1.NodeGroupRolloutSpec) {
				s.LaunchTemplateVersion, s.ImageID = "", "ami-0123456789abcdef0"
			},
			check: func(t *testing.T, f *fixture, d Decision) {
				got := actionsOf[CreateTarget](d)
				want := CreateTarget{TemplateID: "lt-1", SourceVersion: "1", ImageID: "ami-0123456789abcdef0", ClientToken: "nodeboot-rollout-uid-r1"}
				if len(got) != 1 || got[0] != want {
					t.Errorf("actions %v, want %v", d.Actions, want)
				}
			},
		},
		{
			name: "no version: the group's current one",
			spec: func(s *rolloutv1.NodeGroupRolloutSpec) { s.LaunchTemplateVersion = "" },
			check: func(t *testing.T, f *fixture, d Decision) {
				if d.Status.Target == nil || d.Status.Target.Version != "1" || d.Status.Phase != rolloutv1.PhaseSucceeded || d.Status.NodesTotal != 0 {
					t.Errorf("target %+v phase %s; want version 1, nothing outdated, done", d.Status.Target, d.Status.Phase)
				}
			},
		},
		{
			name:       "no launch template",
			noTemplate: true,
			check: func(t *testing.T, f *fixture, d Decision) {
				mustPhase(t, d, rolloutv1.PhaseFailed)
				if d.Status.Failure.Code != rolloutv1.LaunchTemplateError {
					t.Errorf("failure %+v", d.Status.Failure)
				}
			},
		},
		{
			name: "invalid max unavailable",
			spec: func(s *rolloutv1.NodeGroupRolloutSpec) { s.MaxUnavailable = ptr.To(intstr.FromString("lots")) },
			check: func(t *testing.T, f *fixture, d Decision) {
				mustPhase(t, d, rolloutv1.PhaseFailed)
				if d.Status.Failure.Code != rolloutv1.InvalidSpec {
					t.Errorf("failure %+v", d.Status.Failure)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(6, threeZones(), tc.spec)
			if tc.noTemplate {
				f.group.LaunchTemplate = nil
			}
			tc.check(t, f, f.plan())
		})
	}
}

func TestInitializeMovesOnOnlyWhenObserved(t *testing.T) {
	t.Run("Default: scales up at once, tainting meanwhile", func(t *testing.T) {
		s := newSim(t, newFixture(6, threeZones(), nil))
		d := s.plan()
		mustPhase(t, d, rolloutv1.PhaseScalingUp)
		if got := actionsOf[SetSizes](d); len(got) != 1 || got[0].Desired != 6+6 || got[0].MaxSize != 12 {
			t.Errorf("SetSizes = %v, want desired and max 12 (surge 2 × 3 zones)", got)
		}
		if got := actionsOf[MarkOld](d); len(got) != 6 {
			t.Errorf("%d taints with the surge, want the 6 outdated nodes", len(got))
		}
		// The capacity comes, but no cordon before every taint shows.
		s.apply(d)
		for i := range s.nodes {
			if s.nodes[i].Labels[LabelSourceLaunchTemplateVersion] == "1" {
				s.nodes[i].Spec.Taints = nil
			}
		}
		d = s.plan()
		mustPhase(t, d, rolloutv1.PhaseScalingUp)
		if len(actionsOf[Cordon](d)) != 0 || len(actionsOf[MarkOld](d)) != 6 {
			t.Errorf("actions %v before the taints showed, want the taints again and no cordon", d.Actions)
		}
	})
	t.Run("Minimal: taints first", func(t *testing.T) {
		s := newSim(t, newFixture(6, threeZones(), func(sp *rolloutv1.NodeGroupRolloutSpec) { sp.Strategy = rolloutv1.StrategyMinimal }))
		s.apply(s.plan())
		if s.ro.Status.Phase != rolloutv1.PhaseInitializing {
			t.Fatalf("phase %s before the taints are observed", s.ro.Status.Phase)
		}
		for _, n := range s.nodes {
			if !hasTaint(&n, "r1") {
				t.Errorf("node %s lacks the PreferNoSchedule taint", n.Name)
			}
		}
		d := s.plan()
		mustPhase(t, d, rolloutv1.PhaseUpgrading)
		if len(actionsOf[SetSizes](d)) != 0 || d.Status.Surge != 0 {
			t.Errorf("minimal strategy surged: %v", d.Actions)
		}
	})
}

// scaledUp returns a sim just after ScalingUp raised the sizes.
func scaledUp(t *testing.T, spec func(*rolloutv1.NodeGroupRolloutSpec)) *sim {
	s := newSim(t, newFixture(6, threeZones(), spec))
	s.runUntil(10, func() bool { return s.group.Desired > 6 })
	return s
}

func TestCapacityGate(t *testing.T) {
	tests := []struct {
		name     string
		breakIt  func(s *sim)
		wantGap  string
		elapsed  time.Duration
		wantFail bool
	}{
		{name: "new node not Ready", wantGap: "is not Ready", breakIt: func(s *sim) {
			s.nodes[len(s.nodes)-1].Status.Conditions[0].Status = corev1.ConditionFalse
		}},
		{name: "new node lacks the launch-template label", wantGap: "lacks eks.amazonaws.com/sourceLaunchTemplateVersion=2", breakIt: func(s *sim) {
			delete(s.nodes[len(s.nodes)-1].Labels, LabelSourceLaunchTemplateVersion)
		}},
		{name: "instance without a Node", wantGap: "has no Node", breakIt: func(s *sim) {
			s.nodes = s.nodes[:len(s.nodes)-1]
		}},
		{name: "instance still pending", wantGap: "11 of 12 instances in service", breakIt: func(s *sim) {
			s.group.Instances[len(s.group.Instances)-1].LifecycleState = nodegroup.LifecyclePending
		}},
		{name: "a zone without new nodes", wantGap: "no new Ready node in zone us-west-2c", breakIt: func(s *sim) {
			for i := range s.nodes {
				if s.nodes[i].Labels[LabelSourceLaunchTemplateVersion] == "2" && s.nodes[i].Labels[corev1.LabelTopologyZone] == "us-west-2c" {
					s.nodes[i].Status.Conditions[0].Status = corev1.ConditionFalse
				}
			}
		}},
		{name: "timeout", wantGap: "is not Ready", elapsed: 15 * time.Minute, wantFail: true, breakIt: func(s *sim) {
			s.nodes[len(s.nodes)-1].Status.Conditions[0].Status = corev1.ConditionFalse
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := scaledUp(t, nil)
			tc.breakIt(s)
			s.now = s.now.Add(tc.elapsed)
			d := s.plan()
			if tc.wantFail {
				mustPhase(t, d, rolloutv1.PhaseFailed)
				if d.Status.Failure.Code != rolloutv1.NodeCreationFailure || !strings.Contains(d.Status.Failure.Message, tc.wantGap) {
					t.Errorf("failure %+v, want NodeCreationFailure naming %q", d.Status.Failure, tc.wantGap)
				}
				return
			}
			mustPhase(t, d, rolloutv1.PhaseScalingUp)
			if !strings.Contains(d.Status.Message, tc.wantGap) || len(actionsOf[Cordon](d)) != 0 {
				t.Errorf("message %q actions %v; want %q and no cordon", d.Status.Message, d.Actions, tc.wantGap)
			}
		})
	}
	t.Run("gate met: the first batch, and every outdated node cordoned", func(t *testing.T) {
		s := scaledUp(t, nil)
		d := s.plan()
		mustPhase(t, d, rolloutv1.PhaseUpgrading)
		if d.Status.Batch != 1 || len(d.Status.Nodes) != 1 || !hasEvent(d, "ScaledUp") {
			t.Errorf("batch %d nodes %v", d.Status.Batch, d.Status.Nodes)
		}
		cordons := actionsOf[Cordon](d)
		if len(cordons) != 6 || cordons[0].Node != d.Status.Nodes[0].Name {
			t.Fatalf("cordons %v, want the batch's node first, then the 5 other outdated nodes", cordons)
		}
	})
	t.Run("a picked node cordoned and drained in one step", func(t *testing.T) {
		s := scaledUp(t, nil)
		s.spreadPods(1)
		d := s.plan()
		batch := d.Status.Nodes[0].Name
		evicts := actionsOf[Evict](d)
		if len(evicts) != 1 || evicts[0].Node != batch || !evicts[0].AfterCordon || len(evicts[0].Pods) == 0 {
			t.Fatalf("evictions %+v, want the batch node's, after its cordon", evicts)
		}
		if cordons := actionsOf[Cordon](d); len(cordons) != 6 || cordons[0].Node != batch {
			t.Errorf("cordons %v, want the batch's node first, then the 5 other outdated nodes beside its evictions", cordons)
		}
		if d.Status.Nodes[0].Evictions != int32(len(evicts[0].Pods)) || d.Status.Nodes[0].Step != rolloutv1.StepDraining {
			t.Errorf("progress %+v, want the evictions counted and the node draining", d.Status.Nodes[0])
		}
	})
	t.Run("an empty picked node drained only once cordoned", func(t *testing.T) {
		s := scaledUp(t, nil)
		d := s.plan()
		if len(actionsOf[Evict](d)) != 0 || d.Status.Nodes[0].Step != rolloutv1.StepDraining {
			t.Fatalf("actions %v progress %+v, want the cordon and the node still draining", d.Actions, d.Status.Nodes[0])
		}
		batch := s.node(d.Status.Nodes[0].Name)
		batch.Spec.Unschedulable = true
		batch.Labels[LabelExcludeLB] = "true"
		s.ro.Status = d.Status
		if d := s.plan(); d.Status.Nodes[0].Step == rolloutv1.StepDraining {
			t.Errorf("progress %+v, want the cordoned empty node drained", d.Status.Nodes[0])
		}
	})
	t.Run("no cordons of other outdated nodes beside evictions of cordoned nodes", func(t *testing.T) {
		s := scaledUp(t, nil)
		s.spreadPods(1)
		picked := s.plan().Status.Nodes[0].Name
		// The same pick with the node already cordoned (its cordon was
		// left from an earlier step): its evictions go out alone.
		s = scaledUp(t, nil)
		s.spreadPods(1)
		n := s.node(picked)
		n.Spec.Unschedulable = true
		n.Labels[LabelExcludeLB] = "true"
		d := s.plan()
		if evicts := actionsOf[Evict](d); len(evicts) != 1 || evicts[0].AfterCordon || len(actionsOf[Cordon](d)) != 0 {
			t.Fatalf("actions %v, want the batch's evictions alone", d.Actions)
		}
		s.apply(d)
		s.ro.Status = d.Status
		if d := s.plan(); len(actionsOf[Cordon](d)) != 5 {
			t.Errorf("actions %v, want the 5 other outdated nodes cordoned once no eviction goes out", d.Actions)
		}
	})
	t.Run("no EKS labels required", func(t *testing.T) {
		s := scaledUp(t, func(sp *rolloutv1.NodeGroupRolloutSpec) {
			sp.NewNodes = rolloutv1.NewNodeRequirements{EKSLabels: ptr.To(false), Labels: map[string]rolloutv1.LabelValue{"team": "blue"}}
		})
		for i := range s.nodes {
			s.nodes[i].Labels = map[string]string{"team": "blue"}
		}
		s.nodes[len(s.nodes)-1].Labels = nil
		if d := s.plan(); !strings.Contains(d.Status.Message, "lacks team=blue") {
			t.Errorf("message %q, want the missing custom label", d.Status.Message)
		}
		s.nodes[len(s.nodes)-1].Labels = map[string]string{"team": "blue"}
		if d := s.plan(); len(actionsOf[Cordon](d)) != 6 {
			t.Errorf("gate not met without EKS labels: %s", d.Status.Message)
		}
	})
}

// draining returns a sim whose first batch (one node, Name order) is
// draining, with the node's pods made by setup: the last decision applied
// sent its first evictions, or found what blocks it.
func draining(t *testing.T, spec func(*rolloutv1.NodeGroupRolloutSpec), setup func(f *fixture, node string)) (*sim, string) {
	s := newSim(t, newFixture(3, threeZones(), func(sp *rolloutv1.NodeGroupRolloutSpec) {
		sp.NodeOrder = rolloutv1.OrderName
		if spec != nil {
			spec(sp)
		}
	}))
	setup(s.fixture, "node-001")
	// The batch's node is cordoned with the pick, then drained.
	s.runUntil(20, func() bool {
		if s.ro.Status.Batch != 1 {
			return false
		}
		p := s.ro.Status.Nodes[0]
		return len(actionsOf[Evict](s.last)) > 0 || len(p.Blockers) > 0 || p.Step != rolloutv1.StepDraining
	})
	return s, "node-001"
}

func TestDrain(t *testing.T) {
	t.Run("evicts what must leave, leaves DaemonSet, mirror and finished pods", func(t *testing.T) {
		s, _ := draining(t, nil, func(f *fixture, node string) {
			f.addPod(node, "web")
			f.addPod(node, "ds", ownedBy("DaemonSet", "agent"))
			f.addPod(node, "static", unowned(), annotated(corev1.MirrorPodAnnotationKey, "x"))
			f.addPod(node, "job", func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded })
		})
		ev := actionsOf[Evict](s.last)
		if len(ev) != 1 || len(ev[0].Pods) != 1 || ev[0].Pods[0].Name != "web" {
			t.Fatalf("evictions %v, want only default/web", ev)
		}
		if d := s.plan(); d.Status.Nodes[0].Step != rolloutv1.StepWaitingAfterDrain {
			t.Errorf("step %s with only DaemonSet, mirror and finished pods left, want WaitingAfterDrain", d.Status.Nodes[0].Step)
		}
	})
	t.Run("refused eviction retried after the interval", func(t *testing.T) {
		s, _ := draining(t, nil, func(f *fixture, node string) {
			f.addPod(node, "db")
			f.addPDB("db", "db", 0, 1, 1, 1)
		})
		p := s.ro.Status.Nodes[0]
		if p.Step != rolloutv1.StepDraining || len(p.Blockers) != 1 || p.Blockers[0].Reason != rolloutv1.BlockedByPDB ||
			!slices.Equal(p.Blockers[0].PodDisruptionBudgets, []string{"default/db"}) {
			t.Fatalf("progress %+v, want draining and blocked by default/db", p)
		}
		s.now = s.now.Add(4 * time.Second)
		if d := s.plan(); len(actionsOf[Evict](d)) != 0 {
			t.Errorf("eviction retried before the 5s interval")
		}
		s.now = s.now.Add(time.Second)
		if d := s.plan(); len(actionsOf[Evict](d)) != 1 {
			t.Errorf("eviction not retried after the interval")
		}
	})
	t.Run("drain timeout fails naming pod and budget", func(t *testing.T) {
		s, node := draining(t, nil, func(f *fixture, node string) {
			f.addPod(node, "db")
			f.addPDB("db", "db", 0, 1, 1, 1)
		})
		s.now = s.now.Add(15 * time.Minute)
		d := s.plan()
		mustPhase(t, d, rolloutv1.PhaseFailed)
		msg := d.Status.Failure.Message
		if d.Status.Failure.Code != rolloutv1.PodEvictionFailure || !strings.Contains(msg, node) || !strings.Contains(msg, "pod default/db blocked by PodDisruptionBudget default/db") {
			t.Errorf("failure %+v", d.Status.Failure)
		}
		if len(d.Actions) != 0 || !hasEvent(d, "PodEvictionFailure") {
			t.Errorf("actions %v events %v", d.Actions, d.Events)
		}
		if again := s.plan(); len(again.Actions) != 0 || len(again.Events) != 0 || again.Status.Phase != rolloutv1.PhaseFailed {
			t.Errorf("a failed rollout acted again without a spec change: %v", again.Actions)
		}
	})
	t.Run("force after the failure deletes the blockers", func(t *testing.T) {
		s, node := draining(t, nil, func(f *fixture, node string) {
			f.addPod(node, "db")
			f.addPod(node, "stuck", deletedAt(t0.Add(-time.Hour)))
			f.addPDB("db", "db", 0, 1, 1, 1)
		})
		s.now = s.now.Add(15 * time.Minute)
		s.plan()
		s.ro.Spec.Force = true
		s.ro.Generation++
		d := s.plan()
		mustPhase(t, d, rolloutv1.PhaseUpgrading)
		del := actionsOf[Delete](d)
		if len(del) != 1 || del[0].Node != node || len(del[0].Pods) != 1 || del[0].Pods[0].Name != "db" || len(del[0].Terminating) != 1 {
			t.Fatalf("deletes %v, want db and the stuck terminating pod", del)
		}
		s.apply(d)
		s.run(100)
		s.checkSucceeded(3)
	})
	t.Run("force lets a deleted pod finish its grace period", func(t *testing.T) {
		s, _ := draining(t, nil, func(f *fixture, node string) {
			f.addPod(node, "db", grace(300))
			f.addPod(node, "leaving", deletedAt(t0.Add(20*time.Minute)))
			f.addPDB("db", "db", 0, 1, 1, 1)
		})
		s.now = s.now.Add(15 * time.Minute)
		s.plan()
		s.ro.Spec.Force = true
		s.ro.Generation++
		if del := actionsOf[Delete](s.plan()); len(del) != 1 || len(del[0].Pods) != 1 || len(del[0].Terminating) != 0 {
			t.Fatalf("deletes %v, want db with its own grace period and leaving left to finish", del)
		}
		// The API server marks db terminating for its 300 s.
		deleted := s.now
		for i := range s.pods {
			if s.pods[i].Name == "db" {
				s.pods[i].DeletionTimestamp = &metav1.Time{Time: deleted.Add(300 * time.Second)}
			}
		}
		for _, at := range []time.Duration{5 * time.Second, 299 * time.Second} {
			s.now = deleted.Add(at)
			if del := actionsOf[Delete](s.plan()); len(del) != 0 {
				t.Fatalf("%s after the forced delete: %v, want the grace periods honoured", at, del)
			}
		}
		s.now = deleted.Add(300 * time.Second)
		if del := actionsOf[Delete](s.plan()); len(del) != 1 || len(del[0].Terminating) != 2 {
			t.Errorf("deletes %v once both grace periods ended, want both with a zero grace period", del)
		}
		s.run(200)
		s.checkSucceeded(3)
	})
	t.Run("force does not wait for pods that keep landing on the node", func(t *testing.T) {
		s, node := draining(t, func(sp *rolloutv1.NodeGroupRolloutSpec) { sp.Force = true }, func(f *fixture, node string) {
			f.addPod(node, "db")
			f.addPDB("db", "db", 0, 1, 1, 1)
		})
		// A workload pinned to the node that tolerates every taint: each
		// pod deleted has a successor there at once.
		returns, told := 0, false
		s.now = s.now.Add(15 * time.Minute)
		s.runUntil(300, func() bool {
			told = told || slices.ContainsFunc(s.last.Events, func(e Event) bool {
				return e.Warning && e.Reason == "PodsLeftBehind" && strings.Contains(e.Message, "go with the node")
			})
			if !slices.ContainsFunc(s.pods, func(p corev1.Pod) bool { return p.Spec.NodeName == node }) && s.node(node) != nil {
				returns++
				s.addPod(node, fmt.Sprintf("pinned-%d", returns), tolerateAll(), func(p *corev1.Pod) { p.CreationTimestamp = metav1.NewTime(s.now) })
			}
			return s.ro.Status.Phase.Terminal()
		})
		if !told {
			t.Errorf("no Warning Event names the pods left behind")
		}
		// Only the pinned pod there when the node went is lost with it.
		if len(s.killed) > 1 || len(s.killed) == 1 && !strings.HasPrefix(s.killed[0], "pinned-") {
			t.Errorf("killed %v, want at most the last pinned pod", s.killed)
		}
		s.killed = nil
		s.checkSucceeded(3)
	})
	t.Run("without force a pod that keeps coming back fails the drain, named", func(t *testing.T) {
		s, node := draining(t, nil, func(f *fixture, node string) {})
		// Nothing refuses it: each pod evicted has a successor pinned to
		// the node at once, until the drain's deadline passes.
		returns := 0
		s.runUntil(300, func() bool {
			if !slices.ContainsFunc(s.pods, func(p corev1.Pod) bool { return p.Spec.NodeName == node && p.DeletionTimestamp == nil }) && s.node(node) != nil {
				returns++
				s.addPod(node, fmt.Sprintf("pinned-%d", returns), tolerateAll())
			}
			s.now = s.now.Add(time.Minute)
			return s.ro.Status.Phase == rolloutv1.PhaseFailed
		})
		f := s.ro.Status.Failure
		if f == nil || f.Code != rolloutv1.PodEvictionFailure || !strings.Contains(f.Message, "1 pods remain: default/pinned-") ||
			!strings.Contains(f.Message, "Set spec.force") {
			t.Errorf("failure %+v, want PodEvictionFailure naming the pinned pod and the way out", f)
		}
	})
	t.Run("force does not wait for a pod its finalizers hold after a zero grace period", func(t *testing.T) {
		s, _ := draining(t, func(sp *rolloutv1.NodeGroupRolloutSpec) { sp.Force = true }, func(f *fixture, node string) {
			// On a NotReady node: no kubelet ends it, its finalizer stays.
			f.addPod(node, "held", deletedAt(t0.Add(-time.Hour)), func(p *corev1.Pod) { p.Finalizers = []string{"example.com/hold"} })
		})
		if b := s.ro.Status.Nodes[0].Blockers; len(b) != 1 || !strings.Contains(b[0].Message, "finalizers example.com/hold") {
			t.Errorf("blockers %+v, want the finalizer named", b)
		}
		s.now = s.now.Add(15 * time.Minute)
		d := s.plan()
		if del := actionsOf[Delete](d); len(del) != 1 || len(del[0].Terminating) != 1 {
			t.Fatalf("deletes %v, want held deleted with a zero grace period", del)
		}
		// The API server keeps it, with a zero grace period, for its finalizer.
		i := slices.IndexFunc(s.pods, func(p corev1.Pod) bool { return p.Name == "held" })
		s.pods[i].DeletionGracePeriodSeconds = ptr.To[int64](0)
		s.now = s.now.Add(5 * time.Second)
		d = s.plan()
		if p := d.Status.Nodes[0]; p.Step != rolloutv1.StepWaitingAfterDrain || !slices.ContainsFunc(d.Events, func(e Event) bool {
			return e.Warning && strings.Contains(e.Message, "default/held") && strings.Contains(e.Message, "example.com/hold")
		}) {
			t.Fatalf("step %s events %v; want drained and a Warning Event naming the pod and its finalizer", p.Step, d.Events)
		}
		s.pods[i].Spec.NodeName = "" // gone with the node, for the sim's checks
		s.run(100)
		s.checkSucceeded(3)
	})
	t.Run("retry without force restarts the drain clock", func(t *testing.T) {
		s, _ := draining(t, nil, func(f *fixture, node string) {
			f.addPod(node, "db")
			f.addPDB("db", "db", 0, 1, 1, 1)
		})
		s.now = s.now.Add(15 * time.Minute)
		s.plan()
		s.ro.Spec.Timeouts.Drain = &metav1.Duration{Duration: time.Hour}
		s.ro.Generation++
		d := s.plan()
		mustPhase(t, d, rolloutv1.PhaseUpgrading)
		if dl := d.Status.Nodes[0].DrainDeadline.Time; !dl.Equal(s.now.Add(time.Hour)) || len(actionsOf[Delete](d)) != 0 {
			t.Errorf("deadline %s actions %v; want now+1h and no delete", dl, d.Actions)
		}
	})
	t.Run("do-not-disrupt pod is never evicted and named", func(t *testing.T) {
		s, _ := draining(t, nil, func(f *fixture, node string) {
			f.addPod(node, "batch", annotated("karpenter.sh/do-not-disrupt", "true"))
		})
		d := s.plan()
		p := d.Status.Nodes[0]
		if len(actionsOf[Evict](d)) != 0 || len(p.Blockers) != 1 || p.Blockers[0].Reason != rolloutv1.BlockedByDoNotDisrupt {
			t.Errorf("actions %v blockers %+v", d.Actions, p.Blockers)
		}
	})
	t.Run("multiple budgets refusal is a blocker like a PDB", func(t *testing.T) {
		s, _ := draining(t, nil, func(f *fixture, node string) {
			f.addPod(node, "web", withLabels("tier", "front"))
			f.addPDB("web-a", "web", 1, 2, 1, 2)
			f.pdbs = append(f.pdbs, f.pdbs[0])
			f.pdbs[1].Name = "web-b"
		})
		p := s.ro.Status.Nodes[0]
		if len(p.Blockers) != 1 || p.Blockers[0].Reason != rolloutv1.BlockedByMultiplePDBs || len(p.Blockers[0].PodDisruptionBudgets) != 2 {
			t.Errorf("blockers %+v", p.Blockers)
		}
	})
	t.Run("terminating pod is waited for, not evicted", func(t *testing.T) {
		s, _ := draining(t, nil, func(f *fixture, node string) {
			f.addPod(node, "leaving", deletedAt(t0.Add(time.Hour)))
		})
		d := s.plan()
		p := d.Status.Nodes[0]
		if len(actionsOf[Evict](d)) != 0 || p.Step != rolloutv1.StepDraining || len(p.Blockers) != 1 || p.Blockers[0].Reason != rolloutv1.BlockedTerminating {
			t.Errorf("actions %v progress %+v", d.Actions, p)
		}
	})
}

func TestPostDrainWaitAndTermination(t *testing.T) {
	s, node := draining(t, nil, func(f *fixture, node string) { f.addPod(node, "web") })
	s.runUntil(10, func() bool { return s.ro.Status.Nodes[0].Step == rolloutv1.StepWaitingAfterDrain })
	drained := s.ro.Status.Nodes[0].DrainedTime.Time
	s.now = drained.Add(59 * time.Second)
	if d := s.plan(); len(actionsOf[Terminate](d)) != 0 || d.RequeueAfter != time.Second {
		t.Fatalf("terminated before the 60 s wait: %v (requeue %s)", d.Actions, d.RequeueAfter)
	}
	// A pod that tolerates the cordon lands on the drained node.
	s.addPod(node, "returns", tolerateAll())
	d := s.plan()
	if p := d.Status.Nodes[0]; p.Step != rolloutv1.StepDraining || !hasEvent(d, "PodReturned") || len(actionsOf[Evict](d)) != 1 {
		t.Fatalf("progress %+v actions %v; want draining again with an eviction", p, d.Actions)
	}
	s.apply(d)
	s.runUntil(10, func() bool { return s.ro.Status.Nodes[0].Step == rolloutv1.StepWaitingAfterDrain })
	s.now = s.ro.Status.Nodes[0].DrainedTime.Add(time.Minute)
	d = s.plan()
	term := actionsOf[Terminate](d)
	if len(term) != 1 || d.Status.Nodes[0].Step != rolloutv1.StepTerminating {
		t.Fatalf("actions %v, want one Terminate", d.Actions)
	}
	// The request is lost (the controller died before sending it).
	s.now = s.now.Add(29 * time.Second)
	if d := s.plan(); len(actionsOf[Terminate](d)) != 0 {
		t.Errorf("termination resent too early")
	}
	s.now = s.now.Add(time.Second)
	d = s.plan()
	if got := actionsOf[Terminate](d); len(got) != 1 || got[0] != term[0] {
		t.Errorf("resend = %v, want %v", got, term)
	}
	s.apply(d)
	// Terminated and gone from the group: counted, told by an Event and
	// no longer listed.
	d = s.plan()
	if d.Status.NodesReplaced != 1 || !hasEvent(d, "NodeReplaced") || slices.ContainsFunc(d.Status.Nodes, func(p rolloutv1.NodeProgress) bool { return p.InstanceID == term[0].InstanceID }) {
		t.Errorf("replaced %d, nodes %+v: want %s replaced and no longer listed", d.Status.NodesReplaced, d.Status.Nodes, term[0].InstanceID)
	}
}

func TestDecrementComesLast(t *testing.T) {
	tests := []struct {
		name                string
		excess, unrequested int32
		want                []bool
	}{
		{name: "surge 2 of 5", excess: 2, unrequested: 5, want: []bool{false, false, false, true, true}},
		{name: "no surge (minimal)", excess: 0, unrequested: 3, want: []bool{false, false, false}},
		{name: "surge equals outdated", excess: 3, unrequested: 3, want: []bool{true, true, true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := &terminations{excess: tc.excess, unrequested: tc.unrequested}
			var got []bool
			for range tc.want {
				got = append(got, tr.decrement())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("decrements = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBatchOrder(t *testing.T) {
	picked := func(spec func(*rolloutv1.NodeGroupRolloutSpec), uid string) []string {
		f := newFixture(9, threeZones(), func(sp *rolloutv1.NodeGroupRolloutSpec) {
			sp.Strategy = rolloutv1.StrategyMinimal
			sp.MaxUnavailable = ptr.To(intstr.FromInt32(3))
			if spec != nil {
				spec(sp)
			}
		})
		f.ro.UID = types.UID("uid-" + uid)
		s := newSim(t, f)
		s.runUntil(10, func() bool { return s.ro.Status.Batch == 1 })
		var names []string
		for _, p := range s.ro.Status.Nodes {
			names = append(names, p.Name)
		}
		return names
	}
	if got := picked(func(s *rolloutv1.NodeGroupRolloutSpec) { s.NodeOrder = rolloutv1.OrderOldest }, "a"); !slices.Equal(got, []string{"node-001", "node-002", "node-003"}) {
		t.Errorf("oldest first picked %v", got)
	}
	if got := picked(func(s *rolloutv1.NodeGroupRolloutSpec) { s.NodeOrder = rolloutv1.OrderNewest }, "a"); !slices.Equal(got, []string{"node-009", "node-008", "node-007"}) {
		t.Errorf("newest first picked %v", got)
	}
	a, again, b := picked(nil, "a"), picked(nil, "a"), picked(nil, "b")
	if len(a) != 3 || !slices.Equal(a, again) {
		t.Errorf("random batch %v then %v: not reproducible for the same rollout", a, again)
	}
	if slices.Equal(a, b) && slices.Equal(a, []string{"node-001", "node-002", "node-003"}) {
		t.Errorf("random order is the name order for two rollouts: %v", a)
	}
}

func TestPauseAndResume(t *testing.T) {
	s, _ := draining(t, nil, func(f *fixture, node string) {
		f.addPod(node, "db")
		f.addPDB("db", "db", 0, 1, 1, 1)
	})
	deadline := s.ro.Status.Nodes[0].DrainDeadline.Time
	s.ro.Spec.Paused = true
	s.ro.Generation++
	d := s.plan()
	mustPhase(t, d, rolloutv1.PhasePaused)
	if len(d.Actions) != 0 || d.Status.ResumePhase != rolloutv1.PhaseUpgrading || !hasEvent(d, "Paused") {
		t.Fatalf("paused with actions %v resume %s", d.Actions, d.Status.ResumePhase)
	}
	s.now = s.now.Add(time.Hour)
	if d := s.plan(); len(d.Actions) != 0 || d.Status.Phase != rolloutv1.PhasePaused {
		t.Fatalf("acted while paused: %v", d.Actions)
	}
	s.ro.Spec.Paused = false
	s.ro.Generation++
	d = s.plan()
	mustPhase(t, d, rolloutv1.PhaseUpgrading)
	if got := d.Status.Nodes[0].DrainDeadline.Time; !got.Equal(deadline.Add(time.Hour)) || !hasEvent(d, "Resumed") {
		t.Errorf("deadline after resume %s, want %s (moved by the pause)", got, deadline.Add(time.Hour))
	}
}

func TestAbort(t *testing.T) {
	s := newSim(t, newFixture(6, threeZones(), func(sp *rolloutv1.NodeGroupRolloutSpec) {
		sp.MaxUnavailable = ptr.To(intstr.FromInt32(2))
	}))
	s.spreadPods(1)
	// Run until the second batch drains: two nodes replaced, two picked.
	s.runUntil(200, func() bool { return s.ro.Status.Batch == 2 })
	originalLT := s.ro.Status.Original.LaunchTemplate.Version
	s.decremented = nil
	s.ro.Spec.Abort = true
	s.ro.Generation++
	s.run(500)
	st := s.ro.Status
	if st.Phase != rolloutv1.PhaseAborted || st.CompletionTime == nil {
		t.Fatalf("phase %s: %s", st.Phase, st.Message)
	}
	if s.group.LaunchTemplate.Version != originalLT || s.group.Desired != 6 || s.group.MaxSize != 6 || s.group.MinSize != 1 {
		t.Errorf("group %+v not restored", s.group)
	}
	for _, n := range s.nodes {
		if n.Spec.Unschedulable || len(n.Spec.Taints) > 0 || n.Labels[LabelExcludeLB] != "" {
			t.Errorf("node %s still marked: unschedulable %t taints %v", n.Name, n.Spec.Unschedulable, n.Spec.Taints)
		}
	}
	if len(s.killed) > 0 {
		t.Errorf("abort killed pods undrained: %v", s.killed)
	}
	released, surplus := 0, len(s.decremented)
	for _, p := range st.Nodes {
		if p.Step == rolloutv1.StepReleased {
			released++
		}
	}
	if released != 2 || surplus == 0 {
		t.Errorf("%d released, %d surplus nodes removed with decrement; want 2 and some", released, surplus)
	}
	if int(st.NodesReplaced) != 2 {
		t.Errorf("replaced %d, want 2 (surplus removals do not count)", st.NodesReplaced)
	}
}

func TestRecordBlockers(t *testing.T) {
	st := &rolloutv1.NodeGroupRolloutStatus{
		Original: &rolloutv1.GroupSettings{LaunchTemplate: rolloutv1.LaunchTemplateVersion{ID: "lt-1", Version: "1"}},
		Nodes:    []rolloutv1.NodeProgress{{Name: "n1", InstanceID: "i-1", Step: rolloutv1.StepDraining}},
	}
	refused := EvictionResult{Node: "n1", Pod: PodRef{Namespace: "default", Name: "db"}, Reason: rolloutv1.BlockedByPDB, Message: "would violate", PodDisruptionBudgets: []string{"default/db"}}
	ev := Record(st, Results{Target: "7", Evictions: []EvictionResult{refused, {Node: "n1", Pod: PodRef{Namespace: "default", Name: "web"}}}}, t0)
	if st.Target == nil || st.Target.Version != "7" || st.Target.ID != "lt-1" {
		t.Errorf("target %+v", st.Target)
	}
	if len(ev) != 1 || !strings.Contains(ev[0].Message, "pod default/db blocked by PodDisruptionBudget default/db") || !ev[0].Warning {
		t.Fatalf("events %+v, want one naming pod and budget", ev)
	}
	if b := st.Nodes[0].Blockers; len(b) != 1 || b[0].Pod != "default/db" || !b[0].Since.Time.Equal(t0) {
		t.Fatalf("blockers %+v", b)
	}
	ev = Record(st, Results{Evictions: []EvictionResult{refused}}, t0.Add(time.Minute))
	if len(ev) != 0 || !st.Nodes[0].Blockers[0].Since.Time.Equal(t0) {
		t.Errorf("second refusal: events %v since %s; want no new event and the first time kept", ev, st.Nodes[0].Blockers[0].Since)
	}
	Record(st, Results{Evictions: []EvictionResult{{Node: "n1", Pod: refused.Pod}}}, t0.Add(2*time.Minute))
	if len(st.Nodes[0].Blockers) != 0 {
		t.Errorf("blockers after a successful eviction: %+v", st.Nodes[0].Blockers)
	}
}

// TestRecordCountsOnlySentEvictions: an eviction the controller did not
// send (its budget had refused another pod in the step) names the blocker
// but is not counted as a request.
func TestRecordCountsOnlySentEvictions(t *testing.T) {
	st := &rolloutv1.NodeGroupRolloutStatus{
		Nodes: []rolloutv1.NodeProgress{{Name: "n1", InstanceID: "i-1", Step: rolloutv1.StepDraining, Evictions: 3}},
	}
	refused := EvictionResult{Node: "n1", Pod: PodRef{Namespace: "default", Name: "web-a"}, Reason: rolloutv1.BlockedByPDB, Message: "would violate", PodDisruptionBudgets: []string{"default/web"}}
	notSent := EvictionResult{Node: "n1", Pod: PodRef{Namespace: "default", Name: "web-b"}, Reason: rolloutv1.BlockedByPDB, Message: "would violate (not sent)",
		PodDisruptionBudgets: []string{"default/web"}, NotSent: true}
	Record(st, Results{Evictions: []EvictionResult{{Node: "n1", Pod: PodRef{Namespace: "default", Name: "solo"}}, refused, notSent}}, t0)
	if n := st.Nodes[0].Evictions; n != 2 {
		t.Errorf("evictions %d, want 2 (the one not sent uncounted)", n)
	}
	if b := st.Nodes[0].Blockers; len(b) != 2 {
		t.Errorf("blockers %+v, want both budget pods named", b)
	}
}

func TestTerminalPhasesDoNothing(t *testing.T) {
	for _, phase := range []rolloutv1.Phase{rolloutv1.PhaseSucceeded, rolloutv1.PhaseAborted} {
		f := newFixture(3, threeZones(), func(s *rolloutv1.NodeGroupRolloutSpec) { s.Abort = true })
		f.ro.Status.Phase = phase
		if d := f.plan(); len(d.Actions) != 0 || len(d.Events) != 0 || d.Status.Phase != phase {
			t.Errorf("%s: actions %v events %v", phase, d.Actions, d.Events)
		}
	}
}

// TestEvictMarksUnhealthyPods: pods a budget may not protect (PodRef.Unhealthy)
// are told apart from Running and Ready ones.
func TestEvictMarksUnhealthyPods(t *testing.T) {
	ready := func(p *corev1.Pod) {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	}
	tests := []struct {
		name string
		opts []podOpt
		want bool
	}{
		{name: "running and ready", opts: []podOpt{ready}, want: false},
		{name: "running, not ready", want: true},
		{name: "pending, bound to the node", opts: []podOpt{func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending }}, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := draining(t, nil, func(f *fixture, node string) { f.addPod(node, "web", tc.opts...) })
			ev := actionsOf[Evict](s.last)
			if len(ev) != 1 || len(ev[0].Pods) != 1 || ev[0].Pods[0].Unhealthy != tc.want {
				t.Fatalf("evictions %+v, want web with Unhealthy %t", ev, tc.want)
			}
		})
	}
}
