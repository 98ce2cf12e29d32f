package controller

import (
	"context"
	"errors"
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

// multiplePDBs is in the Eviction API's 500 answer for a pod that several
// budgets select.
const multiplePDBs = "more than one PodDisruptionBudget"

// evict creates one Eviction with a UID precondition (a successor with the
// same name is left alone) and the pod's own grace period.
func (r *Reconciler) evict(ctx context.Context, ref plan.PodRef) error {
	uid := ref.UID
	ev := &policyv1.Eviction{
		ObjectMeta:    metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name},
		DeleteOptions: &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}},
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name}}
	return r.Client.SubResource("eviction").Create(ctx, pod, ev)
}

// ClassifyEviction turns the Eviction API's answer into a result: evicted
// (also when the pod is gone or was replaced), refused by a budget (429
// naming a DisruptionBudget cause), refused because several budgets select
// the pod (500 "more than one PodDisruptionBudget", treated like 429), or
// another error (a 429 of API priority and fairness among them).
func ClassifyEviction(node string, ref plan.PodRef, err error) plan.EvictionResult {
	res := plan.EvictionResult{Node: node, Pod: ref}
	switch {
	case err == nil, apierrors.IsNotFound(err), apierrors.IsConflict(err):
		return res
	case apierrors.IsTooManyRequests(err) && hasDisruptionBudgetCause(err):
		res.Reason = rolloutv1.BlockedByPDB
	case statusCode(err) == http.StatusInternalServerError && strings.Contains(err.Error(), multiplePDBs):
		res.Reason = rolloutv1.BlockedByMultiplePDBs
	default:
		res.Reason = rolloutv1.BlockedByError
	}
	res.Message = errorMessage(err)
	res.PodDisruptionBudgets = ref.PodDisruptionBudgets
	return res
}

func hasDisruptionBudgetCause(err error) bool {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		return false
	}
	d := st.Status().Details
	if d == nil {
		return false
	}
	for _, c := range d.Causes {
		if c.Type == policyv1.DisruptionBudgetCause {
			return true
		}
	}
	return false
}

// errorMessage is the API server's message with every cause.
func errorMessage(err error) string {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		return err.Error()
	}
	s := st.Status()
	msg := s.Message
	if s.Details != nil {
		for _, c := range s.Details.Causes {
			if c.Message != "" && !strings.Contains(msg, c.Message) {
				msg += "; " + c.Message
			}
		}
	}
	return msg
}

func statusCode(err error) int {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return int(st.Status().Code)
	}
	return 0
}
