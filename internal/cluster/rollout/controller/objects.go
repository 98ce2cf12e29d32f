package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

// The controller watches NodeGroupRollouts as unstructured objects and
// decodes each one by itself: a typed informer decodes the whole list at
// once, so a single object it cannot decode (one stored before its CRD
// validated it, say with timeouts.drain: abc) would keep its cache from
// ever syncing and stop every rollout of the cluster.

// rolloutGVK is the NodeGroupRollout kind the controller reads.
var rolloutGVK = rolloutv1.SchemeGroupVersion.WithKind(rolloutv1.Kind)

func newUnstructuredRollout() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(rolloutGVK)
	return u
}

func newUnstructuredRolloutList() *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(rolloutGVK.GroupVersion().WithKind(rolloutv1.Kind + "List"))
	return l
}

// decodeRollout decodes one rollout; a number its field cannot hold is
// an error (checkIntRanges), not a truncated value.
func decodeRollout(u *unstructured.Unstructured) (*rolloutv1.NodeGroupRollout, error) {
	if err := checkIntRanges(u.UnstructuredContent()); err != nil {
		return nil, fmt.Errorf("the controller cannot read NodeGroupRollout %s: %w", u.GetName(), err)
	}
	ro := &rolloutv1.NodeGroupRollout{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), ro); err != nil {
		return nil, fmt.Errorf("the controller cannot read NodeGroupRollout %s: %w", u.GetName(), err)
	}
	return ro, nil
}

// reportUndecodable says on the object why the controller cannot act on
// it: the three conditions (Degraded with the decoding error), the message
// and a Warning Event. A rollout being deleted loses the controller's
// finalizer, since nothing can be undone for it. It returns nil once the
// report is written: the object is left until it changes.
func (r *Reconciler) reportUndecodable(ctx context.Context, u *unstructured.Unstructured, decodeErr error) error {
	msg := decodeErr.Error() + "; fix or delete the object"
	logf.FromContext(ctx).Error(decodeErr, "undecodable NodeGroupRollout", "rollout", u.GetName())
	r.Recorder.Event(u, corev1.EventTypeWarning, rolloutv1.ReasonInvalidObject, msg)
	patch, err := json.Marshal(map[string]any{"status": map[string]any{
		"message":    msg,
		"conditions": plan.InvalidObjectConditions(msg, metav1.NewTime(r.now().Truncate(time.Second))),
	}})
	if err != nil {
		return fmt.Errorf("report undecodable %s: %w", u.GetName(), err)
	}
	if err := r.Client.Status().Patch(ctx, u, client.RawPatch(types.MergePatchType, patch)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("report undecodable %s: %w", u.GetName(), err)
	}
	if u.GetDeletionTimestamp() != nil && slices.Contains(u.GetFinalizers(), rolloutv1.Finalizer) {
		return r.patchFinalizers(ctx, u, slices.DeleteFunc(slices.Clone(u.GetFinalizers()), isOurFinalizer))
	}
	return nil
}

func isOurFinalizer(f string) bool { return f == rolloutv1.Finalizer }

// settleFinalizer keeps the controller's finalizer on a rollout exactly
// while deleting it must first run the abort: it adds it to a rollout not
// finished, and removes it once the rollout is finished (Succeeded,
// Aborted) or, when being deleted, has nothing to undo (it never started)
// or a status the controller does not act on (plan.CheckStatus), like an
// undecodable one: an abort from it could not be trusted either.
// It reports whether the rollout is finished: nothing is left to plan.
func (r *Reconciler) settleFinalizer(ctx context.Context, ro *rolloutv1.NodeGroupRollout) (bool, error) {
	has := slices.Contains(ro.Finalizers, rolloutv1.Finalizer)
	deleting := ro.DeletionTimestamp != nil
	var untrusted error
	if deleting {
		untrusted = plan.CheckStatus(ro, r.now())
	}
	finished := ro.Status.Phase.Terminal() || (deleting && (ro.Status.Phase == "" || untrusted != nil))
	if finished {
		r.groups().forget(ro.Name)
	}
	switch {
	case !has && !finished && !deleting:
		return false, r.patchFinalizers(ctx, ro, append(slices.Clone(ro.Finalizers), rolloutv1.Finalizer))
	case has && finished:
		if deleting {
			r.recordDeleted(ro, untrusted)
		}
		return true, r.patchFinalizers(ctx, ro, slices.DeleteFunc(slices.Clone(ro.Finalizers), isOurFinalizer))
	}
	return finished, nil
}

// recordDeleted records that a rollout being deleted lets go: with nothing
// to undo, or with a status the controller does not act on (untrusted),
// leaving what the rollout did in place.
func (r *Reconciler) recordDeleted(ro *rolloutv1.NodeGroupRollout, untrusted error) {
	phase := phaseOrNew(ro.Status.Phase)
	if untrusted == nil || ro.Status.Phase.Terminal() || ro.Status.Phase == "" {
		r.Recorder.Event(ro, corev1.EventTypeNormal, "Deleted", fmt.Sprintf("rollout deleted in phase %s: nothing left to undo", phase))
		return
	}
	r.Recorder.Event(ro, corev1.EventTypeWarning, "Deleted", fmt.Sprintf("rollout deleted in phase %s with a status the controller does not act on (%v): nothing undone; "+
		"nodes may still carry the taint %s=%s and the cordon (annotation %s=%s), and the group its surge and target version",
		phase, untrusted, plan.TaintKey, ro.Name, plan.AnnotationCordonedBy, ro.Name))
}

func phaseOrNew(p rolloutv1.Phase) string {
	if p == "" {
		return "(not started)"
	}
	return string(p)
}

// patchFinalizers sets obj's finalizers with a merge patch guarded by its
// resource version.
func (r *Reconciler) patchFinalizers(ctx context.Context, obj client.Object, finalizers []string) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"finalizers": finalizers, "resourceVersion": obj.GetResourceVersion(),
	}})
	if err != nil {
		return fmt.Errorf("finalizers of %s: %w", obj.GetName(), err)
	}
	if err := r.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, patch)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("set the finalizers of %s: %w", obj.GetName(), err)
	}
	return nil
}
