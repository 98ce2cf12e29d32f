package plan

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
)

// inFlight reports whether a picked node still needs the rollout.
func inFlight(step rolloutv1.NodeStep) bool {
	return step == rolloutv1.StepDraining || step == rolloutv1.StepWaitingAfterDrain || step == rolloutv1.StepTerminating
}

// upgrade moves the current batch on and, when it is done, picks the next;
// meanwhile it cordons the outdated nodes that are not yet.
func (w *world) upgrade(d *Decision) {
	st := &d.Status
	if !w.launchesTarget(d) {
		return
	}
	defer func() {
		if st.Phase == rolloutv1.PhaseUpgrading {
			w.cordonOutdated(d)
		}
	}()
	t := w.newTerminations(st)
	busy := 0
	for i := range st.Nodes {
		p := &st.Nodes[i]
		if !inFlight(p.Step) {
			continue
		}
		w.advance(d, p, t)
		if st.Phase != rolloutv1.PhaseUpgrading {
			return // failed
		}
		if inFlight(p.Step) {
			busy++
		}
	}
	if busy > 0 {
		st.Message = w.batchMessage(st)
		return
	}
	candidates, waiting := w.candidates(st)
	if len(candidates) == 0 {
		if waiting > 0 {
			st.Message = fmt.Sprintf("waiting for %d outdated instances to leave the group", waiting)
			requeue(d, w.set.EvictionRetryInterval)
			return
		}
		st.Phase = rolloutv1.PhaseScalingDown
		w.event(d, false, "Replaced", fmt.Sprintf("all %d outdated nodes replaced", st.NodesReplaced))
		w.step(d)
		return
	}
	if !w.waitForCapacity(d, nil, "replacement nodes") {
		return
	}
	w.pickBatch(d, candidates)
}

// advance moves one picked node along its steps.
func (w *world) advance(d *Decision, p *rolloutv1.NodeProgress, t *terminations) {
	if p.Step == rolloutv1.StepDraining {
		w.drain(d, p)
	}
	if p.Step == rolloutv1.StepWaitingAfterDrain {
		w.afterDrain(d, p, t)
	}
	if p.Step == rolloutv1.StepTerminating {
		w.terminating(d, p)
	}
}

// candidates returns the outdated InService instances not picked yet, and
// how many outdated instances are neither (launching or leaving).
func (w *world) candidates(st *rolloutv1.NodeGroupRolloutStatus) ([]nodegroup.Instance, int) {
	picked := map[string]bool{}
	for _, p := range st.Nodes {
		if p.Step != rolloutv1.StepReleased {
			picked[p.InstanceID] = true
		}
	}
	var out []nodegroup.Instance
	waiting := 0
	for _, in := range w.outdated(st) {
		switch {
		case picked[in.ID]:
		case in.InService():
			out = append(out, in)
		default:
			waiting++
		}
	}
	return out, waiting
}

// pickBatch starts the next batch: up to maxUnavailable candidates in the
// rollout's node order, cordoned and drained.
func (w *world) pickBatch(d *Decision, candidates []nodegroup.Instance) {
	st := &d.Status
	st.Batch++
	ordered := w.order(candidates, st.Batch)
	n := min(int(st.MaxUnavailable), len(ordered))
	deadline := metav1.NewTime(w.Now.Add(w.set.DrainTimeout))
	var names []string
	for _, in := range ordered[:n] {
		p := rolloutv1.NodeProgress{
			InstanceID: in.ID, Zone: in.Zone, Batch: st.Batch, Step: rolloutv1.StepDraining,
			DrainStartTime: &w.now, DrainDeadline: &deadline,
		}
		if node, ok := w.nodes[in.ID]; ok {
			p.Name = node.Name
		}
		names = append(names, firstNonEmpty(p.Name, p.InstanceID))
		st.Nodes = append(st.Nodes, p)
	}
	w.event(d, false, "BatchStarted", fmt.Sprintf("batch %d: draining %v", st.Batch, names))
	t := w.newTerminations(st)
	for i := len(st.Nodes) - n; i < len(st.Nodes); i++ {
		w.advance(d, &st.Nodes[i], t)
		if st.Phase != rolloutv1.PhaseUpgrading {
			return
		}
	}
	st.Message = w.batchMessage(st)
}

// drain evicts the pods of a picked node until none must leave.
func (w *world) drain(d *Decision, p *rolloutv1.NodeProgress) {
	if _, ok := w.instance(p.InstanceID); !ok {
		w.terminated(d, p, "left the group before it was drained")
		return
	}
	node, ok := w.nodes[p.InstanceID]
	if !ok {
		w.drained(d, p) // no Node: nothing to drain
		return
	}
	// A node not cordoned yet is cordoned first; its evictions go out in
	// the same step, after the cordon (Evict.AfterCordon).
	cordonFirst := !cordoned(node)
	if cordonFirst {
		d.Actions = append(d.Actions, Cordon{Node: node.Name})
	}
	left := w.podsLeft(node, p)
	if left.count() == 0 {
		if !cordonFirst {
			w.leftBehind(d, p, node.Name, left.behind)
			w.drained(d, p)
		}
		return
	}
	p.Blockers = w.blockers(p, left.evict, left.doNotEvict, left.terminating)
	due := p.LastEvictionTime == nil || !w.Now.Before(p.LastEvictionTime.Add(w.set.EvictionRetryInterval))
	if deadline := p.DrainDeadline.Time; w.Now.Before(deadline) {
		if due && len(left.evict) > 0 {
			d.Actions = append(d.Actions, Evict{Node: node.Name, Pods: w.refsWithBudgets(left.evict), AfterCordon: cordonFirst})
			p.LastEvictionTime = &w.now
			p.Evictions += int32(len(left.evict))
		}
		requeue(d, w.until(deadline))
	} else if cordonFirst || !w.pastDeadline(d, p, node.Name, left, due) {
		return
	}
	// Refused evictions go again after the interval; with none, as soon as
	// the answers are recorded (no event may follow a refusal).
	requeue(d, max(w.set.EvictionRetryInterval, time.Millisecond))
}

// podsOnNode are a draining node's pods that must still leave, by how,
// and those a forced drain leaves behind (goesWithNode).
type podsOnNode struct {
	evict, doNotEvict, terminating []*corev1.Pod
	behind                         []*corev1.Pod
}

func (p podsOnNode) count() int { return len(p.evict) + len(p.doNotEvict) + len(p.terminating) }

// names names the pods that must still leave (namespace/name), in order.
func (p podsOnNode) names() []string {
	var out []string
	for _, pods := range [][]*corev1.Pod{p.evict, p.doNotEvict, p.terminating} {
		for _, pod := range pods {
			out = append(out, pod.Namespace+"/"+pod.Name)
		}
	}
	return out
}

// podsLeft sorts the pods of node that must leave: to evict, never to
// evict (do-not-disrupt), already terminating; and those left behind.
func (w *world) podsLeft(node *corev1.Node, p *rolloutv1.NodeProgress) podsOnNode {
	var out podsOnNode
	for _, pod := range w.podsOn(node.Name) {
		switch {
		case !mustLeave(pod):
		case w.goesWithNode(p, pod) != "":
			out.behind = append(out.behind, pod)
		case pod.DeletionTimestamp != nil:
			out.terminating = append(out.terminating, pod)
		case doNotDisruptAnnotation(pod) != "":
			out.doNotEvict = append(out.doNotEvict, pod)
		default:
			out.evict = append(out.evict, pod)
		}
	}
	return out
}

// pastDeadline handles a drain past its deadline: the rollout fails with
// PodEvictionFailure, or with force the pods left are deleted (when due)
// with their own grace period, and those terminating past theirs again with
// a zero one. It reports whether the rollout goes on.
func (w *world) pastDeadline(d *Decision, p *rolloutv1.NodeProgress, node string, left podsOnNode, due bool) bool {
	if !w.set.Force {
		w.fail(d, rolloutv1.PodEvictionFailure, evictionFailure(p, w.set.DrainTimeout, left.names()))
		return false
	}
	pods, late := append(left.evict, left.doNotEvict...), overdue(left.terminating, w.Now)
	if due && len(pods)+len(late) > 0 {
		d.Actions = append(d.Actions, Delete{Node: node, Pods: refs(pods), Terminating: refs(late)})
		p.LastEvictionTime = &w.now
		p.Evictions += int32(len(pods) + len(late))
	}
	return true
}

// overdue returns the terminating pods whose grace period has ended. The
// others are still shutting down as their terminationGracePeriodSeconds
// allows: a zero grace period would remove them from the API at once while
// their containers still run (a StatefulSet's successor would start beside
// them), so a forced drain waits for those.
func overdue(pods []*corev1.Pod, now time.Time) []*corev1.Pod {
	var out []*corev1.Pod
	for _, pod := range pods {
		if late, _ := terminatingFor(pod, now); late >= 0 {
			out = append(out, pod)
		}
	}
	return out
}

// goesWithNode returns why a forced drain past its deadline leaves pod to
// go with the node, or "" if it waits for it. Waiting would never end for
// a pod created after the deadline: it was scheduled onto the cordoned
// node (it tolerates the cordon) or bound there directly, and each deletion
// only puts a successor in its place. Nor for one deleted with a zero grace
// period that its finalizers keep: only their owner can remove it.
func (w *world) goesWithNode(p *rolloutv1.NodeProgress, pod *corev1.Pod) string {
	if !w.set.Force || p.DrainDeadline == nil || w.Now.Before(p.DrainDeadline.Time) {
		return ""
	}
	switch {
	case pod.CreationTimestamp.After(p.DrainDeadline.Time):
		return "bound to the node after its drain deadline"
	case heldByFinalizers(pod):
		return "deleted with a zero grace period, kept by finalizers " + strings.Join(pod.Finalizers, ", ")
	}
	return ""
}

// heldByFinalizers reports whether pod was deleted with a zero grace
// period and only its finalizers keep it.
func heldByFinalizers(pod *corev1.Pod) bool {
	g := pod.DeletionGracePeriodSeconds
	return pod.DeletionTimestamp != nil && g != nil && *g == 0 && len(pod.Finalizers) > 0
}

// leftBehind tells, with a Warning Event, which pods a forced drain did not
// wait for, and why.
func (w *world) leftBehind(d *Decision, p *rolloutv1.NodeProgress, node string, pods []*corev1.Pod) {
	if len(pods) == 0 {
		return
	}
	why := make([]string, len(pods))
	for i, pod := range pods {
		why[i] = fmt.Sprintf("%s/%s (%s)", pod.Namespace, pod.Name, w.goesWithNode(p, pod))
	}
	w.event(d, true, "PodsLeftBehind", fmt.Sprintf("node %s drained (force) except %s: they go with the node", node, strings.Join(why, "; ")))
}

// drained records that a node is empty and moves on to the wait.
func (w *world) drained(d *Decision, p *rolloutv1.NodeProgress) {
	p.Step = rolloutv1.StepWaitingAfterDrain
	p.DrainedTime = &w.now
	p.Blockers = nil
}

// afterDrain waits postDrainWait on an empty node, then terminates it. A
// pod that came back (it tolerates the cordon) sends the node back to
// draining, within the same deadline.
func (w *world) afterDrain(d *Decision, p *rolloutv1.NodeProgress, t *terminations) {
	if node, ok := w.nodes[p.InstanceID]; ok {
		for _, pod := range w.podsOn(node.Name) {
			if mustLeave(pod) && pod.DeletionTimestamp == nil && w.goesWithNode(p, pod) == "" {
				p.Step, p.DrainedTime = rolloutv1.StepDraining, nil
				w.event(d, false, "PodReturned", fmt.Sprintf("pod %s/%s was scheduled onto drained node %s; draining again", pod.Namespace, pod.Name, node.Name))
				w.drain(d, p)
				return
			}
		}
	}
	end := p.DrainedTime.Add(w.set.PostDrainWait)
	if w.Now.Before(end) {
		requeue(d, w.until(end))
		return
	}
	p.Step = rolloutv1.StepTerminating
	p.Decrement = t.decrement()
	p.TerminationTime = &w.now
	d.Actions = append(d.Actions, Terminate{InstanceID: p.InstanceID, Decrement: p.Decrement})
}

// terminating waits for a terminated instance to leave the group and
// repeats a request that went unanswered.
func (w *world) terminating(d *Decision, p *rolloutv1.NodeProgress) {
	in, ok := w.instance(p.InstanceID)
	if !ok || !(in.InService() || in.LifecycleState == nodegroup.LifecyclePending) {
		w.terminated(d, p, "replaced")
		return
	}
	if resend := p.TerminationTime.Add(resendTermination); !w.Now.Before(resend) {
		p.TerminationTime = &w.now
		d.Actions = append(d.Actions, Terminate{InstanceID: p.InstanceID, Decrement: p.Decrement})
		return
	}
	requeue(d, w.until(p.TerminationTime.Add(resendTermination)))
}

// terminated ends a node's progress and keeps only its history.
func (w *world) terminated(d *Decision, p *rolloutv1.NodeProgress, why string) {
	p.Step = rolloutv1.StepTerminated
	p.TerminatedTime = &w.now
	p.Blockers, p.DrainDeadline, p.LastEvictionTime = nil, nil, nil
	if p.Batch != abortBatch {
		d.Status.NodesReplaced++
	}
	drain := ""
	if p.DrainStartTime != nil && p.DrainedTime != nil {
		drain = fmt.Sprintf("; drained in %s with %d eviction requests", p.DrainedTime.Sub(p.DrainStartTime.Time).Round(time.Millisecond), p.Evictions)
	}
	w.event(d, false, "NodeReplaced", fmt.Sprintf("node %s (%s): %s%s", firstNonEmpty(p.Name, p.InstanceID), p.InstanceID, why, drain))
}

// terminations decides which terminations lower the desired capacity: the
// group ends at its original size when exactly the surge (the excess
// over the original desired capacity) is removed by decrementing
// terminations, and those come last, so that capacity stays up until then.
type terminations struct {
	excess, unrequested int32
}

func (w *world) newTerminations(st *rolloutv1.NodeGroupRolloutStatus) *terminations {
	requested := map[string]bool{}
	for _, p := range st.Nodes {
		if p.Step == rolloutv1.StepTerminating || p.Step == rolloutv1.StepTerminated {
			requested[p.InstanceID] = true
		}
	}
	t := &terminations{}
	if st.Original != nil {
		t.excess = w.Group.Desired - st.Original.DesiredCapacity
	}
	for _, in := range w.outdated(st) {
		if in.InService() && !requested[in.ID] {
			t.unrequested++
		}
	}
	return t
}

// decrement decides for the next termination.
func (t *terminations) decrement() bool {
	dec := t.excess > 0 && t.excess >= t.unrequested
	if dec {
		t.excess--
	}
	t.unrequested--
	return dec
}

// batchMessage summarises the current batch.
func (w *world) batchMessage(st *rolloutv1.NodeGroupRolloutStatus) string {
	steps := map[rolloutv1.NodeStep]int{}
	blocked := ""
	for _, p := range st.Nodes {
		if p.Batch == st.Batch {
			steps[p.Step]++
		}
		if inFlight(p.Step) && len(p.Blockers) > 0 && blocked == "" {
			b := p.Blockers[0]
			blocked = fmt.Sprintf("; blocked: %s on %s (%s)", b.Pod, p.Name, b.Reason)
		}
	}
	return fmt.Sprintf("batch %d: %d draining, %d waiting after drain, %d terminating, %d replaced in total%s",
		st.Batch, steps[rolloutv1.StepDraining], steps[rolloutv1.StepWaitingAfterDrain], steps[rolloutv1.StepTerminating], st.NodesReplaced, blocked)
}

// refsWithBudgets names pods with the budgets that select them, and
// whether they are unhealthy (PodRef.Unhealthy).
func (w *world) refsWithBudgets(pods []*corev1.Pod) []PodRef {
	out := refs(pods)
	for i, p := range pods {
		out[i].PodDisruptionBudgets = budgetNames(w.budgets.matching(p))
		out[i].Unhealthy = !runningAndReady(p)
	}
	return out
}

// runningAndReady reports whether p counts as healthy for a budget.
func runningAndReady(p *corev1.Pod) bool {
	if p.Status.Phase != corev1.PodRunning {
		return false
	}
	return slices.ContainsFunc(p.Status.Conditions, func(c corev1.PodCondition) bool {
		return c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue
	})
}

func refs(pods []*corev1.Pod) []PodRef {
	out := make([]PodRef, len(pods))
	for i, p := range pods {
		out[i] = podRef(p)
	}
	return out
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
