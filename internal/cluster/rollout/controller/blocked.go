package controller

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

// reportBlocked says on an aborted rollout, or one being deleted, why its
// abort cannot plan (its group cannot be read: access denied, say): the
// phase is Aborting, and the status message and the conditions (Degraded,
// AbortBlocked) name the error and, for a deletion, the way out
// (plan.Blocked). Otherwise the object would keep claiming the phase it
// had, Progressing, while its finalizer held the deletion for good. The
// first failure is written, not each retry: the errors differ by their
// request IDs, and each write would wake the controller at once instead
// of after its backoff. The next planning step that gets through writes
// the status anew. It returns cause.
func (r *Reconciler) reportBlocked(ctx context.Context, ro *rolloutv1.NodeGroupRollout, cause error) error {
	if !stopping(ro) || ro.Status.Phase.Terminal() {
		return cause
	}
	if c := meta.FindStatusCondition(ro.Status.Conditions, rolloutv1.ConditionDegraded); c != nil && c.Reason == rolloutv1.ReasonAbortBlocked {
		return cause
	}
	st, events := plan.Blocked(ro, r.now(), blockedMessage(ro, cause))
	if err := r.writeStatus(ctx, ro, st); err != nil {
		if apierrors.IsConflict(err) {
			return cause
		}
		return errors.Join(cause, err)
	}
	r.record(ro, events)
	return cause
}

// blockedMessage names what holds up the abort and, when the rollout is
// being deleted, how to delete it without the abort.
func blockedMessage(ro *rolloutv1.NodeGroupRollout, cause error) string {
	msg := fmt.Sprintf("abort blocked, retrying: %v", cause)
	if ro.DeletionTimestamp == nil {
		return msg
	}
	return msg + fmt.Sprintf("; the finalizer %s holds the deletion until the group is restored. To delete the rollout "+
		"without restoring the group or releasing its nodes: kubectl patch nodegrouprollout %s --type=merge -p '{\"metadata\":{\"finalizers\":null}}'",
		rolloutv1.Finalizer, ro.Name)
}
