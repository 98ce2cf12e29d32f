package controller

import (
	"errors"
	"fmt"
	"testing"

	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

func TestClassifyEviction(t *testing.T) {
	pdb := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
	pdb.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: policyv1.DisruptionBudgetCause, Message: "The disruption budget web needs 2 healthy pods and has 2 currently"}}
	podGR := schema.GroupResource{Resource: "pods"}
	tests := []struct {
		name        string
		err         error
		wantReason  rolloutv1.BlockerReason
		wantMessage string
	}{
		{name: "evicted", err: nil},
		{name: "pod already gone", err: apierrors.NewNotFound(podGR, "web-1")},
		{name: "UID precondition failed: a successor, left alone", err: apierrors.NewConflict(podGR, "web-1", errors.New("uid mismatch"))},
		{name: "budget exhausted", err: pdb, wantReason: rolloutv1.BlockedByPDB,
			wantMessage: "Cannot evict pod as it would violate the pod's disruption budget.; The disruption budget web needs 2 healthy pods and has 2 currently"},
		{name: "budget exhausted, wrapped", err: fmt.Errorf("evict: %w", pdb), wantReason: rolloutv1.BlockedByPDB},
		{name: "several budgets (500, treated like 429)", wantReason: rolloutv1.BlockedByMultiplePDBs,
			err: apierrors.NewInternalError(errors.New("This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."))},
		{name: "API priority and fairness 429 without a budget cause", err: apierrors.NewTooManyRequests("too many requests", 1), wantReason: rolloutv1.BlockedByError},
		{name: "namespace terminating", err: apierrors.NewForbidden(podGR, "web-1", errors.New("namespace is terminating")), wantReason: rolloutv1.BlockedByError},
		{name: "other 500", err: apierrors.NewInternalError(errors.New("etcd timeout")), wantReason: rolloutv1.BlockedByError},
	}
	ref := plan.PodRef{Namespace: "default", Name: "web-1", PodDisruptionBudgets: []string{"default/web"}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := ClassifyEviction("node-1", ref, tc.err)
			if r.Reason != tc.wantReason || r.Node != "node-1" || r.Pod.Name != "web-1" {
				t.Fatalf("result %+v, want reason %q", r, tc.wantReason)
			}
			if tc.wantReason != "" && len(r.PodDisruptionBudgets) != 1 {
				t.Errorf("budgets %v, want the pod's budgets named", r.PodDisruptionBudgets)
			}
			if tc.wantMessage != "" && r.Message != tc.wantMessage {
				t.Errorf("message %q, want %q", r.Message, tc.wantMessage)
			}
		})
	}
}
