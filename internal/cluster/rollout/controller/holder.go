package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

// holder returns the rollout that holds ro's group (plan.GroupHolder), or
// "", from the cache's rollouts, read as unstructured data so that an
// undecodable one counts too.
func (r *Reconciler) holder(ctx context.Context, ro *rolloutv1.NodeGroupRollout) (string, error) {
	if ro.Status.Phase != "" || stopping(ro) {
		return "", nil
	}
	list := newUnstructuredRolloutList()
	if err := r.Client.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
		return "", fmt.Errorf("list rollouts: %w", err)
	}
	claims := make([]plan.Claim, 0, len(list.Items))
	for _, u := range list.Items {
		c := plan.Claim{Name: u.GetName(), Created: u.GetCreationTimestamp().Time}
		c.Group.AutoScalingGroupName, _, _ = unstructured.NestedString(u.Object, "spec", "nodeGroup", "autoScalingGroupName")
		c.Group.Region, _, _ = unstructured.NestedString(u.Object, "spec", "nodeGroup", "region")
		phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
		c.Phase = rolloutv1.Phase(phase)
		claims = append(claims, c)
	}
	return plan.GroupHolder(ro, claims), nil
}

// wait keeps a rollout whose group another holds from starting: its
// status says which, and it looks again every poll interval.
func (r *Reconciler) wait(ctx context.Context, ro *rolloutv1.NodeGroupRollout, holder string) (reconcile.Result, error) {
	st := plan.Waiting(ro, r.now(), holder)
	if st.Message != ro.Status.Message {
		r.Recorder.Event(ro, corev1.EventTypeWarning, "Waiting", st.Message)
	}
	if err := r.writeStatus(ctx, ro, st); err != nil {
		if apierrors.IsConflict(err) {
			return reconcile.Result{RequeueAfter: conflictRetry}, nil
		}
		return reconcile.Result{}, err
	}
	return reconcile.Result{RequeueAfter: r.poll()}, nil
}
