package controller

import (
	"context"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

func TestPatchBudgetKeepsThePlannersOrder(t *testing.T) {
	actions := []plan.Action{
		plan.SetSizes{Desired: 3},
		plan.Cordon{Node: "batch-1"}, plan.Cordon{Node: "batch-2"},
		plan.Evict{Node: "batch-1"},
		plan.Cordon{Node: "other-1"}, plan.MarkOld{Node: "other-2"}, plan.Release{Node: "other-3"},
		plan.Terminate{InstanceID: "i-1"},
	}
	tests := []struct {
		name         string
		budget       int
		wantKept     []string
		wantDeferred int
		actions      []plan.Action // nil: the shared ones
	}{
		{name: "room for all", budget: 10, wantKept: []string{"set group sizes min 0 max 0 desired 3", "cordon node batch-1", "cordon node batch-2",
			"evict 0 pods from node batch-1: ", "cordon node other-1", "taint node other-2 nodeboot.io/rollout:PreferNoSchedule", "release node other-3",
			"terminate instance i-1 (decrement false)"}},
		{name: "the batch's cordons first", budget: 2, wantDeferred: 3, wantKept: []string{"set group sizes min 0 max 0 desired 3",
			"cordon node batch-1", "cordon node batch-2", "evict 0 pods from node batch-1: ", "terminate instance i-1 (decrement false)"}},
		{name: "a cordon that evictions wait for is never left", budget: 1, wantDeferred: 1, actions: []plan.Action{
			plan.Cordon{Node: "other-1"}, plan.Cordon{Node: "batch-1"}, plan.Evict{Node: "batch-1", AfterCordon: true}, plan.Cordon{Node: "other-2"},
		}, wantKept: []string{"cordon node other-1", "cordon node batch-1", "evict 0 pods from node batch-1: "}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &Reconciler{NodePatches: tc.budget}
			acts := actions
			if tc.actions != nil {
				acts = tc.actions
			}
			kept, deferred := r.patchBudget(acts)
			var got []string
			for _, a := range kept {
				got = append(got, a.String())
			}
			if !slices.Equal(got, tc.wantKept) || deferred != tc.wantDeferred {
				t.Errorf("patchBudget() = %q, %d deferred; want %q, %d", got, deferred, tc.wantKept, tc.wantDeferred)
			}
		})
	}
}

// countingGroup counts Describe calls.
type countingGroup struct {
	nodegroup.Group
	describes int
}

func (g *countingGroup) Describe(context.Context) (nodegroup.State, error) {
	g.describes++
	return nodegroup.State{Name: "g"}, nil
}

// TestGroupDescriptionFollowsTheNodeSet: a description is reused while the
// cluster's Nodes are the same ones and it is young, for the same rollout
// object and group; a Node joining or leaving, the refresh interval, a
// rollout of the same name created again or naming another group asks the
// group again.
func TestGroupDescriptionFollowsTheNodeSet(t *testing.T) {
	clock := clocktesting.NewFakePassiveClock(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC))
	r := &Reconciler{Clock: clock, GroupRefresh: 5 * time.Second}
	g := &countingGroup{}
	var two, three nodeSet
	for _, id := range []string{"i-1", "i-2"} {
		two.add(id)
		three.add(id)
	}
	three.add("i-3")
	r1 := &rolloutv1.NodeGroupRollout{ObjectMeta: metav1.ObjectMeta{Name: "r1", UID: "uid-1"},
		Spec: rolloutv1.NodeGroupRolloutSpec{NodeGroup: rolloutv1.NodeGroupReference{AutoScalingGroupName: "a"}}}
	recreated := r1.DeepCopy()
	recreated.UID = "uid-2"
	otherGroup := recreated.DeepCopy()
	otherGroup.Spec.NodeGroup.AutoScalingGroupName = "b"
	steps := []struct {
		ro            *rolloutv1.NodeGroupRollout
		nodes         nodeSet
		after         time.Duration
		wantDescribes int
	}{
		{r1, two, 0, 1},
		{r1, two, time.Second, 1},
		{r1, three, 0, 2},             // a Node joined
		{r1, three, time.Second, 2},   // heartbeats only
		{r1, two, 0, 3},               // a Node left
		{r1, two, 5 * time.Second, 4}, // the refresh interval
		{r1, nodeSet{count: 2}, 0, 5}, // other Nodes, same count
		{r1, nodeSet{count: 2}, 0, 5},
		{recreated, nodeSet{count: 2}, 0, 6}, // deleted and created again
		{recreated, nodeSet{count: 2}, 0, 6},
		{otherGroup, nodeSet{count: 2}, 0, 7}, // another group
	}
	for i, s := range steps {
		clock.SetTime(clock.Now().Add(s.after))
		if _, err := r.describe(t.Context(), s.ro, g, s.nodes); err != nil {
			t.Fatal(err)
		}
		if g.describes != s.wantDescribes {
			t.Fatalf("step %d: %d describes, want %d", i, g.describes, s.wantDescribes)
		}
	}
}
