package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

// awsWorkers bounds the Auto Scaling calls one planning step makes at the
// same time (terminations); the SDK retries throttled calls.
const awsWorkers = 4

// execute carries out a decision's actions. The group-level ones run first,
// in order (the target, the group's version and sizes); then every node
// patch, eviction, pod deletion and termination is a task of its own: they
// are independent (the planner asks for two things on one node in one
// step only to cordon and drain it: those evictions wait for the batch's
// cordons) and idempotent. The evictions run on Workers goroutines of their own,
// the other tasks on as many again, so that a drain never waits behind the
// cordons of nodes that are not being drained yet. A failure does not stop
// the others; the errors are joined.
func (r *Reconciler) execute(ctx context.Context, rollout string, g nodegroup.Group, actions []plan.Action) (plan.Results, error) {
	e := &execution{r: r, ctx: ctx, rollout: rollout, group: g, aws: make(chan struct{}, awsWorkers)}
	tasks, evictions := e.tasks(actions)
	var wg sync.WaitGroup
	wg.Go(func() { r.run(evictions) })
	r.run(tasks)
	wg.Wait()
	e.timing.log(ctx)
	return e.res, errors.Join(e.errs...)
}

// execution is one planning step's actions being carried out.
type execution struct {
	r       *Reconciler
	ctx     context.Context
	rollout string
	group   nodegroup.Group
	// aws bounds the Auto Scaling calls made at the same time.
	aws chan struct{}
	// seen holds the budgets that refused an eviction in this step.
	seen refusals
	// timing follows the step's eviction requests.
	timing evictionTiming
	// cordons are the step's cordons that evictions wait for.
	cordons *batchCordons

	mu   sync.Mutex
	res  plan.Results
	errs []error
}

// report counts an action's outcome and keeps its error.
func (e *execution) report(a plan.Action, err error) {
	e.r.Metrics.action(a, err)
	if err != nil {
		e.mu.Lock()
		e.errs = append(e.errs, fmt.Errorf("%s: %w", a, err))
		e.mu.Unlock()
	}
}

// tasks carries out the group actions, in order, and returns the others as
// tasks, the evictions apart, in the planner's order (node by node); they
// skip the pods of a budget that refused in this step (refusals).
func (e *execution) tasks(actions []plan.Action) (tasks, evictions []func()) {
	e.cordons = newBatchCordons(actions)
	for _, a := range actions {
		switch a := a.(type) {
		case plan.ResolveTarget, plan.CreateTarget, plan.SetLaunchTemplate, plan.SetSizes:
			e.report(a, e.r.groupAction(e.ctx, e.rollout, e.group, a, &e.res))
		case plan.Evict:
			for _, ref := range a.Pods {
				evictions = append(evictions, e.evictTask(eviction{node: a.Node, pod: ref, afterCordon: a.AfterCordon}))
			}
		case plan.Cordon:
			tasks = append(tasks, func() {
				err := e.r.nodeAction(e.ctx, e.rollout, a)
				e.report(a, err)
				e.cordons.finish(a.Node, err)
			})
		case plan.Delete:
			tasks = append(tasks, e.deleteTasks(a)...)
		case plan.Terminate:
			tasks = append(tasks, func() {
				e.aws <- struct{}{}
				defer func() { <-e.aws }()
				e.report(a, e.r.terminate(e.ctx, e.rollout, e.group, a))
			})
		default:
			tasks = append(tasks, func() { e.report(a, e.r.nodeAction(e.ctx, e.rollout, a)) })
		}
	}
	return tasks, evictions
}

// evictTask evicts one pod and records the answer.
func (e *execution) evictTask(ev eviction) func() {
	return func() {
		if ev.afterCordon && !e.cordons.wait(e.ctx, ev.node) {
			e.mu.Lock()
			e.res.Evictions = append(e.res.Evictions, plan.EvictionResult{Node: ev.node, Pod: ev.pod, NotSent: true})
			e.mu.Unlock()
			return
		}
		sent := time.Now()
		er := e.r.evictOnce(e.ctx, ev, &e.seen)
		e.timing.answered(sent, er)
		e.mu.Lock()
		e.res.Evictions = append(e.res.Evictions, er)
		e.mu.Unlock()
	}
}

// deleteTasks deletes a node's pods, those already terminating with a zero
// grace period.
func (e *execution) deleteTasks(a plan.Delete) []func() {
	var tasks []func()
	for _, ref := range a.Pods {
		tasks = append(tasks, func() { e.report(a, e.r.deletePod(e.ctx, ref)) })
	}
	for _, ref := range a.Terminating {
		tasks = append(tasks, func() { e.report(a, e.r.deletePod(e.ctx, ref, client.GracePeriodSeconds(0))) })
	}
	return tasks
}

// run runs tasks on at most Workers goroutines and waits for them.
func (r *Reconciler) run(tasks []func()) {
	workers := r.Workers
	if workers <= 0 {
		workers = DefaultWorkers
	}
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for _, task := range tasks {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			task()
		}()
	}
	wg.Wait()
}

// groupAction carries out an action on the group itself.
func (r *Reconciler) groupAction(ctx context.Context, rollout string, g nodegroup.Group, a plan.Action, res *plan.Results) error {
	switch a := a.(type) {
	case plan.ResolveTarget:
		v, err := g.ResolveVersion(ctx, a.TemplateID, a.Version)
		res.Target = v
		return err
	case plan.CreateTarget:
		v, err := g.CreateVersion(ctx, a.TemplateID, a.SourceVersion, a.ImageID, a.ClientToken)
		res.Target = v
		return err
	case plan.SetLaunchTemplate:
		defer r.groups().forget(rollout)
		return g.SetLaunchTemplate(ctx, a.Template)
	case plan.SetSizes:
		defer r.groups().forget(rollout)
		return g.SetSizes(ctx, nodegroup.Sizes{MinSize: &a.MinSize, MaxSize: &a.MaxSize, Desired: &a.Desired})
	}
	return fmt.Errorf("unknown group action %T", a)
}

// terminate terminates an instance; one already gone is done.
func (r *Reconciler) terminate(ctx context.Context, rollout string, g nodegroup.Group, a plan.Terminate) error {
	defer r.groups().forget(rollout)
	if err := g.TerminateInstance(ctx, a.InstanceID, a.Decrement); err != nil && !errors.Is(err, nodegroup.ErrInstanceGone) {
		return err
	}
	return nil
}

// nodeAction patches a Node.
func (r *Reconciler) nodeAction(ctx context.Context, rollout string, a plan.Action) error {
	switch a := a.(type) {
	case plan.MarkOld:
		return r.patchNode(ctx, a.Node, func(n *corev1.Node) { markOld(n, rollout) })
	case plan.Cordon:
		return r.patchNode(ctx, a.Node, func(n *corev1.Node) { cordon(n, rollout) })
	case plan.Release:
		return r.patchNode(ctx, a.Node, func(n *corev1.Node) { release(n, rollout) })
	}
	return fmt.Errorf("unknown action %T", a)
}

// patchNode applies change to a Node with a merge patch guarded by the
// resource version (a concurrent writer makes it fail; the next planning
// step tries again). A Node that is gone needs nothing.
func (r *Reconciler) patchNode(ctx context.Context, name string, change func(*corev1.Node)) error {
	n := &corev1.Node{}
	if err := r.Client.Get(ctx, types.NamespacedName{Name: name}, n); err != nil {
		return client.IgnoreNotFound(err)
	}
	base := n.DeepCopy()
	change(n)
	err := r.Client.Patch(ctx, n, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))
	return client.IgnoreNotFound(err)
}

// markOld adds the rollout's PreferNoSchedule taint.
func markOld(n *corev1.Node, rollout string) {
	t := plan.RolloutTaint(rollout)
	if !slices.ContainsFunc(n.Spec.Taints, func(x corev1.Taint) bool { return x.MatchTaint(&t) && x.Value == t.Value }) {
		n.Spec.Taints = append(n.Spec.Taints, t)
	}
}

// cordon marks the node unschedulable and excluded from external load
// balancers, noting which of the two the rollout did.
func cordon(n *corev1.Node, rollout string) {
	if !n.Spec.Unschedulable {
		n.Spec.Unschedulable = true
		setAnnotation(n, plan.AnnotationCordonedBy, rollout)
	}
	if n.Labels[plan.LabelExcludeLB] != "true" {
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		n.Labels[plan.LabelExcludeLB] = "true"
		setAnnotation(n, plan.AnnotationLBExcludedBy, rollout)
	}
}

// release undoes markOld and whatever cordon did.
func release(n *corev1.Node, rollout string) {
	t := plan.RolloutTaint(rollout)
	n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(x corev1.Taint) bool { return x.MatchTaint(&t) && x.Value == t.Value })
	if n.Annotations[plan.AnnotationCordonedBy] == rollout {
		n.Spec.Unschedulable = false
		delete(n.Annotations, plan.AnnotationCordonedBy)
	}
	if n.Annotations[plan.AnnotationLBExcludedBy] == rollout {
		delete(n.Labels, plan.LabelExcludeLB)
		delete(n.Annotations, plan.AnnotationLBExcludedBy)
	}
}

func setAnnotation(n *corev1.Node, k, v string) {
	if n.Annotations == nil {
		n.Annotations = map[string]string{}
	}
	n.Annotations[k] = v
}

// deletePod deletes a pod (force: PodDisruptionBudgets do not apply), with
// its own grace period unless opts say otherwise; a pod already gone or
// replaced is done.
func (r *Reconciler) deletePod(ctx context.Context, ref plan.PodRef, opts ...client.DeleteOption) error {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name}}
	opts = append(opts, client.Preconditions{UID: &ref.UID})
	if err := r.Client.Delete(ctx, p, opts...); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("delete pod %s: %w", ref, err)
	}
	return nil
}

// batchCordons are a step's cordons that evictions wait for (the nodes
// cordoned and drained in one step, Evict.AfterCordon). Those evictions go
// out once every such cordon of the step is done, so that no pod they
// displace lands on another node of the batch not cordoned yet (which
// would cost another eviction step), and only for a node whose own cordon
// succeeded.
type batchCordons struct {
	mu               sync.Mutex
	members, pending map[string]bool
	failed           map[string]bool
	done             chan struct{}
}

// newBatchCordons finds the nodes of actions with both a Cordon and an
// Evict that waits for it.
func newBatchCordons(actions []plan.Action) *batchCordons {
	b := &batchCordons{members: map[string]bool{}, pending: map[string]bool{}, failed: map[string]bool{}, done: make(chan struct{})}
	cordoned := map[string]bool{}
	for _, a := range actions {
		if c, ok := a.(plan.Cordon); ok {
			cordoned[c.Node] = true
		}
	}
	for _, a := range actions {
		if e, ok := a.(plan.Evict); ok && e.AfterCordon && cordoned[e.Node] {
			b.members[e.Node], b.pending[e.Node] = true, true
		}
	}
	if len(b.pending) == 0 {
		close(b.done)
	}
	return b
}

// finish records a cordon's outcome.
func (b *batchCordons) finish(node string, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.pending[node] {
		return
	}
	delete(b.pending, node)
	b.failed[node] = err != nil
	if len(b.pending) == 0 {
		close(b.done)
	}
}

// wait waits for the batch's cordons and reports whether node's succeeded
// (a node without its cordon in the step is not cordoned).
func (b *batchCordons) wait(ctx context.Context, node string) bool {
	b.mu.Lock()
	member := b.members[node]
	b.mu.Unlock()
	if !member {
		return false
	}
	select {
	case <-b.done:
	case <-ctx.Done():
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.failed[node]
}
