package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

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
// patch, eviction, pod deletion and termination is a task of its own, run
// on Workers goroutines: they are independent (the planner never asks for
// two things on one node in one step) and idempotent. A failure does not
// stop the others; the errors are joined.
func (r *Reconciler) execute(ctx context.Context, rollout string, g nodegroup.Group, actions []plan.Action) (plan.Results, error) {
	var (
		res   plan.Results
		mu    sync.Mutex
		errs  []error
		tasks []func()
		// evictions run last, in the planner's order (node by node), and
		// skip the pods of a budget that refused in this step (refusals).
		evictions []eviction
	)
	report := func(a plan.Action, err error) {
		r.Metrics.action(a, err)
		if err != nil {
			mu.Lock()
			errs = append(errs, fmt.Errorf("%s: %w", a, err))
			mu.Unlock()
		}
	}
	aws := make(chan struct{}, awsWorkers)
	for _, a := range actions {
		switch a := a.(type) {
		case plan.ResolveTarget, plan.CreateTarget, plan.SetLaunchTemplate, plan.SetSizes:
			report(a, r.groupAction(ctx, rollout, g, a, &res))
		case plan.Evict:
			for _, ref := range a.Pods {
				evictions = append(evictions, eviction{node: a.Node, pod: ref})
			}
		case plan.Delete:
			for _, ref := range a.Pods {
				tasks = append(tasks, func() { report(a, r.deletePod(ctx, ref)) })
			}
			for _, ref := range a.Terminating {
				tasks = append(tasks, func() { report(a, r.deletePod(ctx, ref, client.GracePeriodSeconds(0))) })
			}
		case plan.Terminate:
			tasks = append(tasks, func() {
				aws <- struct{}{}
				defer func() { <-aws }()
				report(a, r.terminate(ctx, rollout, g, a))
			})
		default:
			tasks = append(tasks, func() { report(a, r.nodeAction(ctx, rollout, a)) })
		}
	}
	var seen refusals
	for _, e := range evictions {
		tasks = append(tasks, func() {
			er := r.evictOnce(ctx, e, &seen)
			mu.Lock()
			res.Evictions = append(res.Evictions, er)
			mu.Unlock()
		})
	}
	r.run(tasks)
	return res, errors.Join(errs...)
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
