package plan

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
)

// resendTermination is how long a termination request may go unanswered
// (the instance still InService) before it is sent again.
const resendTermination = 30 * time.Second

// world is a Snapshot indexed for one planning step.
type world struct {
	Snapshot
	set  Settings
	name string
	now  metav1.Time
	// nodes maps instance IDs to their Nodes, instances to the group's
	// instances.
	nodes     map[string]*corev1.Node
	instances map[string]nodegroup.Instance
	// pods maps node names to the pods bound there (all of them, or those
	// asked for so far with Snapshot.PodsOn).
	pods    map[string][]*corev1.Pod
	budgets budgets
}

func newWorld(s Snapshot) *world {
	w := &world{
		Snapshot:  s,
		set:       settingsOf(s.Rollout),
		name:      s.Rollout.Name,
		now:       metav1.NewTime(s.Now),
		nodes:     map[string]*corev1.Node{},
		instances: make(map[string]nodegroup.Instance, len(s.Group.Instances)),
		pods:      map[string][]*corev1.Pod{},
		budgets:   newBudgets(s.PDBs),
	}
	for i := range s.Nodes {
		if id := NodeInstanceID(&s.Nodes[i]); id != "" {
			w.nodes[id] = &s.Nodes[i]
		}
	}
	for _, in := range s.Group.Instances {
		w.instances[in.ID] = in
	}
	if s.PodsOn != nil {
		return w
	}
	for i := range s.Pods {
		p := &s.Pods[i]
		if p.Spec.NodeName != "" {
			w.pods[p.Spec.NodeName] = append(w.pods[p.Spec.NodeName], p)
		}
	}
	return w
}

// podsOn returns the pods bound to the named Node.
func (w *world) podsOn(node string) []*corev1.Pod {
	if w.PodsOn == nil {
		return w.pods[node]
	}
	if pods, ok := w.pods[node]; ok {
		return pods
	}
	got := w.PodsOn(node)
	pods := make([]*corev1.Pod, len(got))
	for i := range got {
		pods[i] = &got[i]
	}
	w.pods[node] = pods
	return pods
}

// instance returns the group's instance id.
func (w *world) instance(id string) (nodegroup.Instance, bool) {
	in, ok := w.instances[id]
	return in, ok
}

// target returns the target version number, or "" before it is known.
func (w *world) target(st *rolloutv1.NodeGroupRolloutStatus) string {
	if st.Target == nil {
		return ""
	}
	return st.Target.Version
}

// outdated returns the group's instances that do not run the target.
func (w *world) outdated(st *rolloutv1.NodeGroupRolloutStatus) []nodegroup.Instance {
	var out []nodegroup.Instance
	for _, in := range w.Group.Instances {
		if in.Version != w.target(st) {
			out = append(out, in)
		}
	}
	return out
}

// Plan decides the next step of a rollout. It is pure: same snapshot, same
// decision. A rollout being deleted is aborted (the controller's finalizer
// holds the deletion until it is Aborted).
func Plan(s Snapshot) Decision {
	if err := CheckStatus(s.Rollout, s.Now); err != nil {
		return Distrust(s.Rollout, s.Now, err)
	}
	w := newWorld(s)
	d := &Decision{Status: *s.Rollout.Status.DeepCopy()}
	w.plan(d)
	w.forgetReplaced(&d.Status)
	setConditions(&d.Status, s.Rollout.Generation, w.now)
	return *d
}

// forgetReplaced drops from the status the terminated nodes whose
// instance has left the group: nothing the planner decides depends on
// them any more (instance IDs do not come back), NodesReplaced counts
// them and a NodeReplaced Event told each. The status thus holds the nodes
// in flight, not every node picked: its size, and the cost of each write
// of it, stays that of a batch or two however large the group.
func (w *world) forgetReplaced(st *rolloutv1.NodeGroupRolloutStatus) {
	st.Nodes = slices.DeleteFunc(st.Nodes, func(p rolloutv1.NodeProgress) bool {
		if p.Step != rolloutv1.StepTerminated {
			return false
		}
		_, inGroup := w.instance(p.InstanceID)
		return !inGroup
	})
	if len(st.Nodes) == 0 {
		st.Nodes = nil
	}
}

// plan moves the status on by one step.
func (w *world) plan(d *Decision) {
	st := &d.Status
	specChanged := st.ObservedGeneration != w.Rollout.Generation
	st.ObservedGeneration = w.Rollout.Generation

	if st.Phase.Terminal() {
		return
	}
	if st.Phase == rolloutv1.PhaseFailed {
		if !specChanged && !w.deleting() {
			return // nothing changed since the failure
		}
		w.retry(d)
	}
	if w.set.Abort && st.Phase != rolloutv1.PhaseAborting {
		w.beginAbort(d)
	}
	if st.Phase == rolloutv1.PhaseAborting {
		w.abort(d)
		return
	}
	if w.set.Paused {
		w.pause(d)
		return
	}
	if st.Phase == rolloutv1.PhasePaused {
		w.resume(d)
	}
	w.step(d)
}

// deleting reports whether the rollout is being deleted.
func (w *world) deleting() bool { return w.Rollout.DeletionTimestamp != nil }

// step runs the current phase.
func (w *world) step(d *Decision) {
	st := &d.Status
	if st.Phase == "" {
		st.Phase = rolloutv1.PhaseInitializing
		st.StartTime = &w.now
		w.event(d, false, "Started", fmt.Sprintf("rolling out node group %s", w.Rollout.Spec.NodeGroup.AutoScalingGroupName))
	}
	if w.Group.LaunchTemplate == nil {
		w.fail(d, rolloutv1.LaunchTemplateError, fmt.Sprintf("Auto Scaling group %s uses no launch template (a launch configuration or a mixed instances policy), which the rollout cannot change", w.Group.Name))
		return
	}
	switch st.Phase {
	case rolloutv1.PhaseInitializing:
		w.initialize(d)
	case rolloutv1.PhaseScalingUp:
		w.scaleUp(d)
	case rolloutv1.PhaseUpgrading:
		w.upgrade(d)
	case rolloutv1.PhaseScalingDown:
		w.scaleDown(d)
	}
}

// fail stops the rollout with a failure; ResumePhase remembers where a
// retry continues.
func (w *world) fail(d *Decision, code rolloutv1.FailureCode, msg string) {
	st := &d.Status
	st.ResumePhase = st.Phase
	st.Phase = rolloutv1.PhaseFailed
	st.Failure = &rolloutv1.Failure{Code: code, Message: msg, Time: w.now}
	st.Message = string(code) + ": " + msg
	w.event(d, true, string(code), msg)
}

// retry resumes a failed rollout after a spec change (force, a longer
// timeout): the failed wait starts over, except that with force a drain
// past its deadline deletes its pods at once.
func (w *world) retry(d *Decision) {
	st := &d.Status
	st.Phase, st.ResumePhase = st.ResumePhase, ""
	if st.Phase == "" {
		st.Phase = rolloutv1.PhaseInitializing
	}
	if st.Failure != nil && st.Failure.Code == rolloutv1.LaunchTemplateError && st.Target != nil && hasStarted(st.Phase) {
		d.Actions = append(d.Actions, SetLaunchTemplate{Template: nodegroup.LaunchTemplate{ID: st.Target.ID, Version: st.Target.Version}})
	}
	st.Failure = nil
	if st.WaitingSince != nil {
		st.WaitingSince = &w.now
	}
	if !w.set.Force {
		deadline := metav1.NewTime(w.Now.Add(w.set.DrainTimeout))
		for i := range st.Nodes {
			if st.Nodes[i].Step == rolloutv1.StepDraining {
				st.Nodes[i].DrainDeadline = &deadline
			}
		}
	}
	if !w.set.Abort {
		w.event(d, false, "Retrying", fmt.Sprintf("spec changed after the failure; continuing in phase %s (force %t)", st.Phase, w.set.Force))
	}
}

// pause stops all actions, remembering the phase.
func (w *world) pause(d *Decision) {
	st := &d.Status
	if st.Phase == rolloutv1.PhasePaused || st.Phase == rolloutv1.PhaseFailed {
		return
	}
	st.ResumePhase = st.Phase
	st.Phase = rolloutv1.PhasePaused
	st.PausedTime = &w.now
	st.Message = "paused: no eviction, termination or new batch until spec.paused is cleared"
	w.event(d, false, "Paused", st.Message)
}

// resume continues a paused rollout; every running deadline moves by the
// time spent paused.
func (w *world) resume(d *Decision) {
	st := &d.Status
	paused := time.Duration(0)
	if st.PausedTime != nil {
		paused = w.Now.Sub(st.PausedTime.Time)
	}
	shift := func(t *metav1.Time) *metav1.Time {
		if t == nil {
			return nil
		}
		moved := metav1.NewTime(t.Add(paused))
		return &moved
	}
	st.WaitingSince = shift(st.WaitingSince)
	for i := range st.Nodes {
		if st.Nodes[i].Step == rolloutv1.StepDraining {
			st.Nodes[i].DrainDeadline = shift(st.Nodes[i].DrainDeadline)
		}
	}
	st.Phase, st.ResumePhase, st.PausedTime = st.ResumePhase, "", nil
	if st.Phase == "" {
		st.Phase = rolloutv1.PhaseInitializing
	}
	w.event(d, false, "Resumed", fmt.Sprintf("resumed in phase %s after %s", st.Phase, paused.Round(time.Second)))
}

func (w *world) event(d *Decision, warning bool, reason, msg string) {
	d.Events = append(d.Events, Event{Warning: warning, Reason: reason, Message: msg})
}

// requeue asks to plan again within after (keeping the soonest).
func requeue(d *Decision, after time.Duration) {
	after = max(after, 0)
	if d.RequeueAfter == 0 || after < d.RequeueAfter {
		d.RequeueAfter = after
	}
}

// until returns the time left until t (at least a millisecond, so that the
// controller does not spin).
func (w *world) until(t time.Time) time.Duration {
	return max(t.Sub(w.Now), time.Millisecond)
}
