package controller

import (
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
)

// midRollout starts a rollout of 6 nodes, two at a time, and runs it into
// its first batch.
func midRollout(t *testing.T) *harness {
	h := newHarness(t, 6, rolloutv1.NodeGroupRolloutSpec{ImageID: "ami-00000002", MaxUnavailable: ptr.To(intstr.FromInt32(2)),
		Timeouts: rolloutv1.Timeouts{PostDrainWait: &metav1.Duration{}, EvictionRetryInterval: &metav1.Duration{Duration: time.Second}}})
	for i, n := range h.nodeNames() {
		h.addPod(n, "web-"+string(rune('a'+i)), "web")
	}
	for i := 0; i < 200 && h.rollout().Status.Batch < 1; i++ {
		h.reconcileOnce()
	}
	return h
}

// gone reports whether the rollout is gone, after up to steps reconciles.
func (h *harness) gone(steps int) bool {
	for i := 0; i < steps; i++ {
		h.reconcileOnce()
		if err := h.client.Get(h.t.Context(), types.NamespacedName{Name: "r1"}, &rolloutv1.NodeGroupRollout{}); apierrors.IsNotFound(err) {
			return true
		}
	}
	return false
}

// deletedAfterItsGroup deletes a rollout whose group was deleted meanwhile:
// nothing of the group is left to restore, and the finalizer is released
// instead of holding the object for good.
func deletedAfterItsGroup(t *testing.T) map[call]int {
	h := midRollout(t)
	if err := h.asg.DeleteGroup(groupName); err != nil {
		t.Fatal(err)
	}
	h.asg.WaitHooks()
	if err := h.client.Delete(t.Context(), h.rollout()); err != nil {
		t.Fatal(err)
	}
	if !h.gone(20) {
		ro := h.rollout()
		t.Fatalf("rollout still there: %s, %s", ro.Status.Phase, ro.Status.Message)
	}
	if ev := h.eventsWith("Aborted"); len(ev) != 1 || !strings.Contains(ev[0], "Auto Scaling group workers no longer exists") {
		t.Errorf("Aborted events %q, want one saying the group is gone", ev)
	}
	return h.calls
}
