package plan

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
)

func TestGroupHolder(t *testing.T) {
	workers := rolloutv1.NodeGroupReference{AutoScalingGroupName: "workers"}
	inRegion := func(r string) rolloutv1.NodeGroupReference {
		return rolloutv1.NodeGroupReference{AutoScalingGroupName: "workers", Region: r}
	}
	tests := []struct {
		name   string
		phase  rolloutv1.Phase // of the rollout asking
		region string
		others []Claim
		want   string
	}{
		{name: "alone", others: []Claim{{Name: "r1", Group: workers}}},
		{name: "another group", others: []Claim{{Name: "a", Group: rolloutv1.NodeGroupReference{AutoScalingGroupName: "db"}, Phase: rolloutv1.PhaseUpgrading}}},
		{name: "an active rollout of the group", others: []Claim{{Name: "z", Group: workers, Phase: rolloutv1.PhaseUpgrading, Created: t0.Add(time.Hour)}}, want: "z"},
		{name: "a failed one holds it too", others: []Claim{{Name: "z", Group: workers, Phase: rolloutv1.PhaseFailed}}, want: "z"},
		{name: "a paused one", others: []Claim{{Name: "z", Group: workers, Phase: rolloutv1.PhasePaused}}, want: "z"},
		{name: "finished ones do not", others: []Claim{
			{Name: "a", Group: workers, Phase: rolloutv1.PhaseSucceeded}, {Name: "b", Group: workers, Phase: rolloutv1.PhaseAborted}}},
		{name: "an older one not started", others: []Claim{{Name: "z", Group: workers, Created: t0.Add(-time.Second)}}, want: "z"},
		{name: "a younger one not started", others: []Claim{{Name: "a", Group: workers, Created: t0.Add(time.Second)}}},
		{name: "same second, first name first", others: []Claim{{Name: "a", Group: workers, Created: t0}}, want: "a"},
		{name: "same second, later name", others: []Claim{{Name: "z", Group: workers, Created: t0}}},
		{name: "the default region matches any", region: "eu-west-1", others: []Claim{{Name: "z", Group: workers, Phase: rolloutv1.PhaseUpgrading}}, want: "z"},
		{name: "another region", region: "eu-west-1", others: []Claim{{Name: "z", Group: inRegion("us-west-2"), Phase: rolloutv1.PhaseUpgrading}}},
		{name: "a started rollout is never held", phase: rolloutv1.PhaseUpgrading, others: []Claim{{Name: "a", Group: workers, Phase: rolloutv1.PhaseUpgrading}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ro := &rolloutv1.NodeGroupRollout{ObjectMeta: metav1.ObjectMeta{Name: "r1", CreationTimestamp: metav1.NewTime(t0)},
				Spec: rolloutv1.NodeGroupRolloutSpec{NodeGroup: inRegion(tc.region)}, Status: rolloutv1.NodeGroupRolloutStatus{Phase: tc.phase}}
			if got := GroupHolder(ro, tc.others); got != tc.want {
				t.Errorf("GroupHolder = %q, want %q", got, tc.want)
			}
		})
	}
}
