package controller

import (
	"context"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

// SetupWithManager registers the reconciler with mgr. Besides the rollouts
// it watches Nodes and bound Pods, so that a drain or a new node moves the
// rollout on at once: every such event wakes each active rollout (there
// are few). A Node appearing or leaving also makes the cached group
// descriptions stale (an instance entered service or left): the snapshot
// sees the set of Nodes change (groupCache).
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr manager.Manager, concurrency int) error {
	if err := mgr.GetFieldIndexer().IndexField(ctx, &corev1.Pod{}, NodeNameIndex, IndexNodeName); err != nil {
		return fmt.Errorf("index pods by node: %w", err)
	}
	err := builder.ControllerManagedBy(mgr).
		Named(ControllerName).
		WithOptions(controller.Options{MaxConcurrentReconciles: max(concurrency, 1)}).
		For(newUnstructuredRollout()).
		Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(r.activeRollouts), builder.WithPredicates(nodeEvents())).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(r.activeRollouts), builder.WithPredicates(boundPods())).
		Complete(r)
	if err != nil {
		return fmt.Errorf("build controller %s: %w", ControllerName, err)
	}
	return nil
}

// activeRollouts maps any event to every rollout not yet finished, nor
// paused unless it is being aborted or deleted (an abort goes on while
// paused). It reads the fields it needs from the unstructured objects,
// so an undecodable rollout elsewhere does not matter here. It runs for
// every Node and Pod event (thousands per batch): it only reads, so the
// cache's objects are not copied.
func (r *Reconciler) activeRollouts(ctx context.Context, _ client.Object) []reconcile.Request {
	list := newUnstructuredRolloutList()
	if err := r.Client.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
		logf.FromContext(ctx).Error(err, "list rollouts")
		return nil
	}
	var reqs []reconcile.Request
	for i := range list.Items {
		if moving(&list.Items[i]) {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Name: list.Items[i].GetName()}})
		}
	}
	return reqs
}

// moving reports whether the stored rollout u acts on Node and Pod events:
// not finished, and not paused unless it is being aborted or deleted.
func moving(u *unstructured.Unstructured) bool {
	phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
	paused, _, _ := unstructured.NestedBool(u.Object, "spec", "paused")
	abort, _, _ := unstructured.NestedBool(u.Object, "spec", "abort")
	return !rolloutv1.Phase(phase).Terminal() && (!paused || abort || u.GetDeletionTimestamp() != nil)
}

// nodeEvents passes Node creations and deletions and the updates the
// planner cares about: readiness, schedulability, taints and labels (not
// heartbeats). It only filters.
func nodeEvents() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return true },
		DeleteFunc: func(event.DeleteEvent) bool { return true },
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(*corev1.Node)
			n, ok2 := e.ObjectNew.(*corev1.Node)
			return ok1 && ok2 && (plan.NodeReady(o) != plan.NodeReady(n) || o.Spec.Unschedulable != n.Spec.Unschedulable ||
				!equality.Semantic.DeepEqual(o.Spec.Taints, n.Spec.Taints) || !maps.Equal(o.Labels, n.Labels))
		},
	}
}

// boundPods passes events of pods bound to a node that change what a drain
// sees: creation, deletion, binding, the start of termination, the phase.
func boundPods() predicate.Funcs {
	bound := func(obj client.Object) bool {
		p, ok := obj.(*corev1.Pod)
		return ok && p.Spec.NodeName != ""
	}
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool { return bound(e.Object) },
		DeleteFunc: func(e event.DeleteEvent) bool { return bound(e.Object) },
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(*corev1.Pod)
			n, ok2 := e.ObjectNew.(*corev1.Pod)
			return ok1 && ok2 && n.Spec.NodeName != "" && (o.Spec.NodeName != n.Spec.NodeName ||
				(o.DeletionTimestamp == nil) != (n.DeletionTimestamp == nil) || o.Status.Phase != n.Status.Phase)
		},
	}
}
