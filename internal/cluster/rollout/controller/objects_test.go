package controller

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
)

// deletedMidWay deletes a rollout during its second batch: the finalizer
// holds the deletion until the abort restored the group and released the
// nodes, as an abort does, and then lets it go.
func deletedMidWay(t *testing.T) map[call]int {
	h := newHarness(t, 6, rolloutv1.NodeGroupRolloutSpec{ImageID: "ami-00000002", MaxUnavailable: ptr.To(intstr.FromInt32(2)),
		Timeouts: rolloutv1.Timeouts{PostDrainWait: &metav1.Duration{}, EvictionRetryInterval: &metav1.Duration{Duration: time.Second}}})
	for i, n := range h.nodeNames() {
		h.addPod(n, "web-"+string(rune('a'+i)), "web")
	}
	for i := 0; i < 200 && h.rollout().Status.Batch < 2; i++ {
		h.reconcileOnce()
	}
	if ro := h.rollout(); !slices.Contains(ro.Finalizers, rolloutv1.Finalizer) || ro.Status.Batch != 2 {
		t.Fatalf("before the deletion: finalizers %v batch %d, want %s in batch 2", ro.Finalizers, ro.Status.Batch, rolloutv1.Finalizer)
	}
	original := h.rollout().Status.Original
	if err := h.client.Delete(t.Context(), h.rollout()); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 500; i++ {
		h.reconcileOnce()
		if err := h.client.Get(t.Context(), types.NamespacedName{Name: "r1"}, &rolloutv1.NodeGroupRollout{}); apierrors.IsNotFound(err) {
			break
		}
	}
	if err := h.client.Get(t.Context(), types.NamespacedName{Name: "r1"}, &rolloutv1.NodeGroupRollout{}); !apierrors.IsNotFound(err) {
		t.Fatalf("rollout still there after the abort: %v", err)
	}
	g, _ := h.asg.Group(groupName)
	if g.Desired != original.DesiredCapacity || g.MaxSize != original.MaxSize || g.LaunchTemplateVersion != original.LaunchTemplate.Version {
		t.Errorf("group desired %d max %d version %s, want the original %+v", g.Desired, g.MaxSize, g.LaunchTemplateVersion, original)
	}
	var nodes corev1.NodeList
	if err := h.client.List(t.Context(), &nodes); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		if n.Spec.Unschedulable || len(n.Spec.Taints) > 0 {
			t.Errorf("node %s still cordoned or tainted after the deletion", n.Name)
		}
	}
	if len(h.eventsWith("Aborted")) == 0 {
		t.Errorf("no Aborted event")
	}
	return h.calls
}

// reportsAnUndecodableRollout stores a rollout the typed API cannot decode
// (as one stored before the CRD validated durations) next to a decodable
// one: the controller reports it on the object, Degraded, and deletes it
// without its finalizer, while the other rollout is read as usual.
func reportsAnUndecodableRollout(t *testing.T) map[call]int {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(rolloutGVK, meta.RESTScopeRoot)
	bad := newUnstructuredRollout()
	bad.SetName("bad")
	bad.SetFinalizers([]string{rolloutv1.Finalizer})
	_ = unstructured.SetNestedField(bad.Object, "workers", "spec", "nodeGroup", "autoScalingGroupName")
	_ = unstructured.SetNestedField(bad.Object, "abc", "spec", "timeouts", "drain")
	fc := fake.NewClientBuilder().WithScheme(scheme).WithRESTMapper(mapper).WithObjects(bad).WithStatusSubresource(bad).Build()
	h := &harness{t: t, calls: map[call]int{}, refuse: map[string]refusal{}}
	events := record.NewFakeRecorder(100)
	r := &Reconciler{Client: interceptor.NewClient(fc, h.interceptors(scheme)), Recorder: events,
		Clock: clocktesting.NewFakePassiveClock(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC))}

	if _, err := r.Reconcile(t.Context(), reconcile.Request{NamespacedName: types.NamespacedName{Name: "bad"}}); err != nil {
		t.Fatalf("Reconcile(bad) = %v, want the report written and no error", err)
	}
	got := newUnstructuredRollout()
	if err := fc.Get(t.Context(), types.NamespacedName{Name: "bad"}, got); err != nil {
		t.Fatal(err)
	}
	msg, _, _ := unstructured.NestedString(got.Object, "status", "message")
	conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
	if !strings.Contains(msg, `time: invalid duration "abc"`) || len(conds) != 3 {
		t.Fatalf("status message %q, %d conditions; want the decoding error and Ready, Progressing, Degraded", msg, len(conds))
	}
	for _, c := range conds {
		c := c.(map[string]any)
		if c["reason"] != rolloutv1.ReasonInvalidObject || (c["type"] == rolloutv1.ConditionDegraded) != (c["status"] == string(metav1.ConditionTrue)) {
			t.Errorf("condition %v", c)
		}
	}
	if e := <-events.Events; !strings.Contains(e, "Warning InvalidObject") {
		t.Errorf("event %q, want a Warning InvalidObject", e)
	}
	if err := fc.Delete(t.Context(), got); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reconcile(t.Context(), reconcile.Request{NamespacedName: types.NamespacedName{Name: "bad"}}); err != nil {
		t.Fatal(err)
	}
	if err := fc.Get(t.Context(), types.NamespacedName{Name: "bad"}, newUnstructuredRollout()); !apierrors.IsNotFound(err) {
		t.Fatalf("the undecodable rollout being deleted kept the finalizer: %v", err)
	}
	return h.calls
}

// reconcileOnce runs one planning step and lets the group's hooks settle;
// the clock moves as in run.
func (h *harness) reconcileOnce() {
	h.t.Helper()
	writes := h.writes()
	res, err := h.rec.Reconcile(h.t.Context(), reconcile.Request{NamespacedName: types.NamespacedName{Name: "r1"}})
	if err != nil {
		h.t.Logf("reconcile: %v", err)
	}
	h.asg.WaitHooks()
	next := max(res.RequeueAfter, 100*time.Millisecond)
	if h.writes() > writes {
		next = 100 * time.Millisecond
	}
	h.clock.SetTime(h.clock.Now().Add(next))
}

// nodeNames lists the cluster's Nodes.
func (h *harness) nodeNames() []string {
	var nodes corev1.NodeList
	if err := h.client.List(context.Background(), &nodes); err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for _, n := range nodes.Items {
		out = append(out, n.Name)
	}
	return out
}

// distrustsAnEditedStatus edits the status of a rollout in its first batch
// through the status subresource into one the controller never writes
// (maxUnavailable 0, which started an empty batch on every step): the
// controller reports it once, acts on nothing, asks for no requeue, and
// lets the rollout go at once when it is deleted, as it does an
// undecodable one.
func distrustsAnEditedStatus(t *testing.T) map[call]int {
	h := newHarness(t, 4, rolloutv1.NodeGroupRolloutSpec{ImageID: "ami-00000002",
		Timeouts: rolloutv1.Timeouts{PostDrainWait: &metav1.Duration{Duration: time.Hour}}})
	for i := 0; i < 200 && h.rollout().Status.Batch < 1; i++ {
		h.reconcileOnce()
	}
	ro := h.rollout()
	ro.Status.MaxUnavailable = 0
	if err := h.client.Status().Update(t.Context(), ro); err != nil {
		t.Fatal(err)
	}
	instances, writes := len(h.asg.Instances(groupName)), h.writes()
	for i := 0; i < 20; i++ {
		res, err := h.rec.Reconcile(t.Context(), reconcile.Request{NamespacedName: types.NamespacedName{Name: "r1"}})
		if err != nil || res.RequeueAfter != 0 {
			t.Fatalf("Reconcile = %+v, %v; want no requeue and no error", res, err)
		}
		h.clock.SetTime(h.clock.Now().Add(time.Minute))
	}
	ro = h.rollout()
	c := meta.FindStatusCondition(ro.Status.Conditions, rolloutv1.ConditionDegraded)
	if c == nil || c.Reason != rolloutv1.ReasonInvalidStatus || !strings.Contains(ro.Status.Message, "status.maxUnavailable 0 in phase") {
		t.Errorf("Degraded %+v, message %q; want InvalidStatus naming maxUnavailable", c, ro.Status.Message)
	}
	if n := h.writes() - writes; n != 1 || len(h.eventsWith(rolloutv1.ReasonInvalidStatus)) != 1 || len(h.asg.Instances(groupName)) != instances {
		t.Errorf("%d writes, instances %d (was %d); want the one report and nothing else", n, len(h.asg.Instances(groupName)), instances)
	}
	if err := h.client.Delete(t.Context(), ro); err != nil {
		t.Fatal(err)
	}
	h.reconcileOnce()
	if err := h.client.Get(t.Context(), types.NamespacedName{Name: "r1"}, &rolloutv1.NodeGroupRollout{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the rollout being deleted kept its finalizer: %v", err)
	}
	if d := h.eventsWith("Deleted"); len(d) != 1 || !strings.Contains(d[0], "Warning Deleted") || !strings.Contains(d[0], "nothing undone") {
		t.Errorf("Deleted events %q, want a warning that nothing was undone", d)
	}
	return h.calls
}
