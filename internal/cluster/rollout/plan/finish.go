package plan

import (
	"fmt"
	"math"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
)

// scaleDown restores the group's sizes; the launch template stays at the
// target.
func (w *world) scaleDown(d *Decision) {
	st := &d.Status
	if w.restoreSizes(d) {
		st.Message = fmt.Sprintf("restoring min %d, max %d, desired %d", st.Original.MinSize, st.Original.MaxSize, st.Original.DesiredCapacity)
		return
	}
	st.Phase = rolloutv1.PhaseSucceeded
	st.CompletionTime = &w.now
	st.WaitingSince = nil
	st.Message = fmt.Sprintf("%d nodes replaced; every instance runs launch template %s version %s", st.NodesReplaced, st.Target.ID, st.Target.Version)
	w.event(d, false, "Succeeded", st.Message)
}

// restoreSizes adds a SetSizes action when the group's sizes differ from
// the original ones and reports whether it did.
func (w *world) restoreSizes(d *Decision) bool {
	o := d.Status.Original
	if o == nil || (w.Group.MinSize == o.MinSize && w.Group.MaxSize == o.MaxSize && w.Group.Desired == o.DesiredCapacity) {
		return false
	}
	d.Actions = append(d.Actions, SetSizes{MinSize: o.MinSize, MaxSize: o.MaxSize, Desired: o.DesiredCapacity})
	return true
}

// beginAbort enters Aborting from any phase.
func (w *world) beginAbort(d *Decision) {
	st := &d.Status
	st.Phase, st.ResumePhase, st.PausedTime, st.Failure = rolloutv1.PhaseAborting, "", nil, nil
	why := "spec.abort set"
	if w.deleting() {
		why = "the rollout is being deleted"
	}
	w.event(d, true, "Aborting", why+": releasing nodes not yet drained and restoring the group")
}

// abortBatch is the batch number of the surplus nodes an abort removes.
const abortBatch = 0

// abort stops the rollout: outdated nodes not yet terminated are released
// (uncordoned, untainted), requested terminations finish, the group's
// launch-template version and sizes are restored, and the surplus nodes
// the surge added are drained and terminated with decrement (rather than
// left to the group's own scale-in, which would not drain them).
func (w *world) abort(d *Decision) {
	st := &d.Status
	if w.GroupGone {
		w.abortGone(d)
		return
	}
	keep, busy := w.abortInFlight(d)
	if st.Phase != rolloutv1.PhaseAborting {
		return // a surplus node failed to drain
	}
	w.restoreTemplate(d)
	busy += w.pickSurplus(d, keep)
	w.releaseMarked(d, keep)
	if busy == 0 {
		w.restoreSizes(d)
	}
	if busy > 0 || len(d.Actions) > 0 {
		st.Message = fmt.Sprintf("aborting: %d surplus or terminating nodes in progress, %d nodes to release", busy, countReleases(d.Actions))
		return
	}
	w.aborted(d, fmt.Sprintf("aborted after replacing %d of %d nodes; the others are back in service and the group is restored", st.NodesReplaced, st.NodesTotal))
}

// aborted ends the abort with msg.
func (w *world) aborted(d *Decision, msg string) {
	st := &d.Status
	st.Phase = rolloutv1.PhaseAborted
	st.CompletionTime = &w.now
	st.WaitingSince = nil
	st.Message = msg
	w.event(d, true, "Aborted", msg)
}

// abortInFlight releases the picked nodes not yet drained and moves the
// others (terminations requested, surplus nodes draining) along. It
// returns the instances whose nodes stay cordoned and how many are still
// in progress; it stops early, the phase changed, when a surplus node
// failed to drain.
func (w *world) abortInFlight(d *Decision) (keep map[string]bool, busy int) {
	st := &d.Status
	t := &terminations{excess: math.MaxInt32} // every abort termination decrements
	keep = map[string]bool{}
	for i := range st.Nodes {
		p := &st.Nodes[i]
		if p.Batch != abortBatch && (p.Step == rolloutv1.StepDraining || p.Step == rolloutv1.StepWaitingAfterDrain) {
			p.Step, p.Blockers, p.DrainDeadline, p.LastEvictionTime = rolloutv1.StepReleased, nil, nil, nil
		}
		if !inFlight(p.Step) {
			continue
		}
		w.advance(d, p, t)
		if st.Phase != rolloutv1.PhaseAborting {
			return keep, busy
		}
		if inFlight(p.Step) {
			keep[p.InstanceID] = true
			busy++
		}
	}
	return keep, busy
}

// restoreTemplate points the group back at its original launch-template
// version. A group moved to a launch configuration or a mixed instances
// policy meanwhile is left on it: pointing it back at the template would
// undo its owner's change.
func (w *world) restoreTemplate(d *Decision) {
	if o, lt := d.Status.Original, w.Group.LaunchTemplate; o != nil && lt != nil && lt.Version != o.LaunchTemplate.Version {
		d.Actions = append(d.Actions, SetLaunchTemplate{Template: nodegroup.LaunchTemplate{ID: o.LaunchTemplate.ID, Version: o.LaunchTemplate.Version}})
	}
}

// releaseMarked releases every Node the rollout marked but those whose
// instances stay cordoned (keep, which may be nil).
func (w *world) releaseMarked(d *Decision, keep map[string]bool) {
	for i := range w.Nodes {
		n := &w.Nodes[i]
		if Touched(n, w.name) && !keep[NodeInstanceID(n)] {
			d.Actions = append(d.Actions, Release{Node: n.Name})
		}
	}
}

// abortGone ends the abort of a rollout whose group no longer exists:
// its instances went with it, nothing of it is left to restore, and the
// Nodes the rollout marked (those still there) are released.
func (w *world) abortGone(d *Decision) {
	st := &d.Status
	for i := range st.Nodes {
		p := &st.Nodes[i]
		if inFlight(p.Step) {
			p.Step, p.Blockers, p.DrainDeadline, p.LastEvictionTime = rolloutv1.StepReleased, nil, nil, nil
		}
	}
	w.releaseMarked(d, nil)
	group := w.Rollout.Spec.NodeGroup.AutoScalingGroupName
	if len(d.Actions) > 0 {
		st.Message = fmt.Sprintf("aborting: Auto Scaling group %s no longer exists; releasing %d nodes", group, len(d.Actions))
		return
	}
	w.aborted(d, fmt.Sprintf("aborted after replacing %d of %d nodes; Auto Scaling group %s no longer exists: nothing of it to restore", st.NodesReplaced, st.NodesTotal, group))
}

// pickSurplus starts removing the nodes the surge added beyond the
// original desired capacity (the emptiest target-version nodes first) and
// returns how many it picked; keep gets their instances.
func (w *world) pickSurplus(d *Decision, keep map[string]bool) int {
	st := &d.Status
	if st.Original == nil || st.Target == nil {
		return 0
	}
	pending := 0 // surplus removals not yet reflected in the desired capacity
	for _, p := range st.Nodes {
		if p.Batch != abortBatch || !inFlight(p.Step) {
			continue
		}
		if in, ok := w.instance(p.InstanceID); p.Step != rolloutv1.StepTerminating || (ok && live(in)) {
			pending++
		}
	}
	surplus := int(w.Group.Desired-st.Original.DesiredCapacity) - pending
	if surplus <= 0 {
		return 0
	}
	var cands []nodegroup.Instance
	for _, in := range w.Group.Instances {
		if live(in) && in.Version == st.Target.Version && !keep[in.ID] {
			cands = append(cands, in)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return w.podsToMove(cands[i]) < w.podsToMove(cands[j]) })
	cands = cands[:min(surplus, len(cands))]
	deadline := metav1.NewTime(w.Now.Add(w.set.DrainTimeout))
	for _, in := range cands {
		p := rolloutv1.NodeProgress{InstanceID: in.ID, Zone: in.Zone, Batch: abortBatch, Step: rolloutv1.StepDraining, DrainStartTime: &w.now, DrainDeadline: &deadline}
		if n, ok := w.nodes[in.ID]; ok {
			p.Name = n.Name
		}
		keep[in.ID] = true
		st.Nodes = append(st.Nodes, p)
		w.drain(d, &st.Nodes[len(st.Nodes)-1])
	}
	return len(cands)
}

// live reports whether an instance counts towards the group's capacity:
// in service, or launching. A launching instance of the surge is surplus
// as much as one in service: restoring the desired capacity while it
// launches would let the group's scale-in pick which instance goes, and
// its default termination policy picks the oldest launch-template
// version, an old node, undrained.
func live(in nodegroup.Instance) bool {
	return in.InService() || in.LifecycleState == nodegroup.LifecyclePending
}

// podsToMove counts the pods a drain of the instance's node would move.
func (w *world) podsToMove(in nodegroup.Instance) int {
	n, ok := w.nodes[in.ID]
	if !ok {
		return 0
	}
	c := 0
	for _, p := range w.podsOn(n.Name) {
		if mustLeave(p) {
			c++
		}
	}
	return c
}

func countReleases(actions []Action) int {
	n := 0
	for _, a := range actions {
		if _, ok := a.(Release); ok {
			n++
		}
	}
	return n
}

// Blocked is the status of a rollout that is aborted or being deleted
// while the controller cannot plan its abort (the group cannot be read):
// the phase is Aborting, as the first step of the abort makes it (with its
// Aborting Event, returned), the message is msg and the conditions say
// AbortBlocked. The next step that plans carries on from there.
func Blocked(ro *rolloutv1.NodeGroupRollout, now time.Time, msg string) (rolloutv1.NodeGroupRolloutStatus, []Event) {
	w := &world{Snapshot: Snapshot{Now: now, Rollout: ro}, set: settingsOf(ro), name: ro.Name, now: metav1.NewTime(now)}
	d := &Decision{Status: *ro.Status.DeepCopy()}
	if d.Status.Phase != rolloutv1.PhaseAborting {
		w.beginAbort(d)
	}
	d.Status.Message = msg
	for _, c := range BlockedConditions(msg, metav1.NewTime(now.Truncate(time.Second))) {
		c.ObservedGeneration = ro.Generation
		meta.SetStatusCondition(&d.Status.Conditions, c)
	}
	return d.Status, d.Events
}
