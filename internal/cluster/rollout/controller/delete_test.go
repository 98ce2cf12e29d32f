package controller

import (
	"net/http"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// accessDenied is Auto Scaling's answer to a caller its policy does not
// allow.
var accessDenied = awstest.Fault{Status: http.StatusForbidden, Code: "AccessDenied",
	Message: "User: arn:aws:sts::111122223333:assumed-role/nodeboot-rollout/x is not authorized to perform: autoscaling:DescribeAutoScalingGroups"}

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

// deletionBlockedByAccess deletes a rollout while the controller may not
// read its group: the rollout stays (the group is surged, its nodes
// marked), says so in its status once, with the way out, and goes once the
// access is back, with the group restored.
func deletionBlockedByAccess(t *testing.T) map[call]int {
	h := midRollout(t)
	h.asg.FailAlways(awstest.ActionDescribeAutoScalingGroups, accessDenied)
	if err := h.client.Delete(t.Context(), h.rollout()); err != nil {
		t.Fatal(err)
	}
	statusWrites := func() int {
		return h.calls[call{"update", rolloutv1.SchemeGroupVersion.Group, "nodegrouprollouts/status"}]
	}
	h.clock.SetTime(h.clock.Now().Add(time.Minute)) // past the group cache
	before := statusWrites()
	if h.gone(10) {
		t.Fatal("the rollout went without its abort")
	}
	ro := h.rollout()
	c := meta.FindStatusCondition(ro.Status.Conditions, rolloutv1.ConditionDegraded)
	p := meta.FindStatusCondition(ro.Status.Conditions, rolloutv1.ConditionProgressing)
	if ro.Status.Phase != rolloutv1.PhaseAborting || len(h.eventsWith("Aborting")) != 1 {
		t.Errorf("phase %s, want Aborting and one Aborting Event", ro.Status.Phase)
	}
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != rolloutv1.ReasonAbortBlocked || p.Status != metav1.ConditionFalse ||
		!strings.Contains(ro.Status.Message, "AccessDenied") || !strings.Contains(ro.Status.Message, "kubectl patch nodegrouprollout r1") {
		t.Errorf("conditions %+v, message %q; want Degraded AbortBlocked naming AccessDenied and the way out", ro.Status.Conditions, ro.Status.Message)
	}
	if n := statusWrites() - before; n != 1 {
		t.Errorf("%d status writes in 10 failed steps, want 1", n)
	}
	h.asg.StopFailing(awstest.ActionDescribeAutoScalingGroups)
	if !h.gone(500) {
		t.Fatalf("rollout still there once the access is back: %s", h.rollout().Status.Message)
	}
	if g, _ := h.asg.Group(groupName); g.Desired != 6 || g.MaxSize != 6 || g.LaunchTemplateVersion != "1" {
		t.Errorf("group %+v after the deletion, want 6/6 at version 1", g)
	}
	return h.calls
}
