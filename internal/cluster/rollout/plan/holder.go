package plan

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
)

// Claim is what GroupHolder reads of a rollout.
type Claim struct {
	Name    string
	Group   rolloutv1.NodeGroupReference
	Phase   rolloutv1.Phase
	Created time.Time
}

// GroupHolder returns the name of the rollout among others that holds
// ro's group, or "". Two rollouts of one group would undo each other: the
// second records the first one's surge as the group's original size, and
// either's abort points the group back at a version the other replaces. A
// group is held by a rollout not finished (Succeeded, Aborted) that has
// started, or that was created before ro (by name, when at the same
// second) and has not started either. A rollout that has started is never
// held back. Groups are the same when their names are and their regions
// are, an empty region (the controller's) matching any.
func GroupHolder(ro *rolloutv1.NodeGroupRollout, others []Claim) string {
	if ro.Status.Phase != "" {
		return ""
	}
	for _, o := range others {
		if o.Name == ro.Name || o.Phase.Terminal() || !sameGroup(o.Group, ro.Spec.NodeGroup) {
			continue
		}
		created := ro.CreationTimestamp.Time
		if o.Phase != "" || o.Created.Before(created) || (o.Created.Equal(created) && o.Name < ro.Name) {
			return o.Name
		}
	}
	return ""
}

func sameGroup(a, b rolloutv1.NodeGroupReference) bool {
	return a.AutoScalingGroupName == b.AutoScalingGroupName && (a.Region == b.Region || a.Region == "" || b.Region == "")
}

// Waiting is the status of a rollout that has not started because holder
// holds its group (GroupHolder).
func Waiting(ro *rolloutv1.NodeGroupRollout, now time.Time, holder string) rolloutv1.NodeGroupRolloutStatus {
	st := *ro.Status.DeepCopy()
	st.ObservedGeneration = ro.Generation
	st.Message = fmt.Sprintf("waiting: rollout %s holds Auto Scaling group %s; this one starts once that one has Succeeded or Aborted, or is deleted",
		holder, ro.Spec.NodeGroup.AutoScalingGroupName)
	setConditions(&st, ro.Generation, metav1.NewTime(now.Truncate(time.Second)))
	return st
}
