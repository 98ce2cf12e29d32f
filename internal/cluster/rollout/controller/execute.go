package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

// execute carries out actions in order. An action that fails does not stop
// the others (each is independent and idempotent); the errors are joined.
func (r *Reconciler) execute(ctx context.Context, rollout string, g nodegroup.Group, actions []plan.Action) (plan.Results, error) {
	var res plan.Results
	var errs []error
	for _, a := range actions {
		err := r.do(ctx, rollout, g, a, &res)
		r.Metrics.action(a, err)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", a, err))
		}
	}
	return res, errors.Join(errs...)
}

func (r *Reconciler) do(ctx context.Context, rollout string, g nodegroup.Group, a plan.Action, res *plan.Results) error {
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
	case plan.Terminate:
		defer r.groups().forget(rollout)
		if err := g.TerminateInstance(ctx, a.InstanceID, a.Decrement); err != nil && !errors.Is(err, nodegroup.ErrInstanceGone) {
			return err
		}
		return nil
	case plan.MarkOld:
		return r.patchNode(ctx, a.Node, func(n *corev1.Node) { markOld(n, rollout) })
	case plan.Cordon:
		return r.patchNode(ctx, a.Node, func(n *corev1.Node) { cordon(n, rollout) })
	case plan.Release:
		return r.patchNode(ctx, a.Node, func(n *corev1.Node) { release(n, rollout) })
	case plan.Evict:
		res.Evictions = append(res.Evictions, r.evictAll(ctx, a)...)
		return nil
	case plan.Delete:
		return r.deleteAll(ctx, a)
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

// deleteAll deletes pods (force): PodDisruptionBudgets do not apply; pods
// already terminating are deleted again with a zero grace period.
func (r *Reconciler) deleteAll(ctx context.Context, a plan.Delete) error {
	var errs []error
	del := func(ref plan.PodRef, opts ...client.DeleteOption) {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name}}
		opts = append(opts, client.Preconditions{UID: &ref.UID})
		if err := r.Client.Delete(ctx, p, opts...); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			errs = append(errs, fmt.Errorf("delete pod %s: %w", ref, err))
		}
	}
	for _, ref := range a.Pods {
		del(ref) // the pod's own grace period
	}
	for _, ref := range a.Terminating {
		del(ref, client.GracePeriodSeconds(0))
	}
	return errors.Join(errs...)
}
