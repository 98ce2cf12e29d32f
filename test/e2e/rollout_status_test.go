//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// refusedStatusEdits are status merge patches the CRD refuses, each with
// the message the API server gives: values the controller never writes,
// settled by one field or one object of the status.
var refusedStatusEdits = []struct {
	patch string
	want  []string
}{
	{`{"status":{"surge":101}}`, []string{"status.surge: Invalid value: 101", "should be less than or equal to 100"}},
	{`{"status":{"maxUnavailable":-1}}`, []string{"status.maxUnavailable: Invalid value: -1", "should be greater than or equal to 0"}},
	{`{"status":{"batch":-1}}`, []string{"status.batch: Invalid value: -1", "should be greater than or equal to 0"}},
	{`{"status":{"target":{"id":"lt-1","version":"abc"}}}`, []string{"status.target", "target.version must be a version number"}},
	{`{"status":{"original":{"minSize":5,"maxSize":10,"desiredCapacity":3,"launchTemplate":{"id":"lt-1","version":"1"}}}}`,
		[]string{"status.original", "sizes must be minSize <= desiredCapacity <= maxSize"}},
	{`{"status":{"nodes":[{"name":"n","instanceID":"i-0","batch":1,"step":"Draining"}]}}`, []string{"status.nodes[0]", "a Draining node needs drainDeadline"}},
	{`{"status":{"phase":"Done"}}`, []string{`status.phase: Unsupported value: "Done"`}},
}

// testEditedStatus edits a running rollout's status through the status
// subresource, as kubectl patch --subresource=status does. What one field
// or object settles, the API server refuses with the CRD's message; what
// it cannot (maxUnavailable 0 while Upgrading, which started an empty
// batch on every step) the controller reports on the rollout (Degraded,
// InvalidStatus, one Warning Event) and acts on nothing until the status
// is fixed; then the rollout goes on and succeeds.
func testEditedStatus(t *testing.T, w *rolloutWorld) {
	ctx := t.Context()
	g := w.createGroup(t, "edited", 4, "us-west-2a", "us-west-2b")
	ws := []workload{{kind: "Deployment", name: "app", replicas: 2}}
	w.deployWorkloads(t, "edited", g.name, ws)
	if out, err := w.cli(t, startArgs("edited", g.name, "--post-drain-wait", "3s")...); err != nil {
		t.Fatalf("start: %v\n%s", err, out)
	}
	ro := w.waitRollout(t, "edited", "the first batch", rolloutHang, func(ro *rolloutv1.NodeGroupRollout) bool { return ro.Status.Batch >= 1 })
	for _, e := range refusedStatusEdits {
		err := w.client.Status().Patch(ctx, ro.DeepCopy(), client.RawPatch("application/merge-patch+json", []byte(e.patch)))
		if !apierrors.IsInvalid(err) || !containsAll(err.Error(), e.want) {
			t.Errorf("status patch %s: the API server answered %v, want Invalid with %q", e.patch, err, e.want)
		}
	}
	for _, patch := range []string{`{"spec":{"imageID":null}}`, `{"spec":{"imageID":null,"launchTemplateVersion":"3"}}`} {
		err := w.client.Patch(ctx, ro.DeepCopy(), client.RawPatch("application/merge-patch+json", []byte(patch)), client.DryRunAll)
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "the target cannot change once created") {
			t.Errorf("spec patch %s: the API server answered %v, want Invalid: the target is immutable", patch, err)
		}
	}
	w.patchStatus(t, "edited", `{"status":{"maxUnavailable":0}}`)
	w.waitRollout(t, "edited", "the edited status reported", rolloutHang, func(ro *rolloutv1.NodeGroupRollout) bool {
		c := meta.FindStatusCondition(ro.Status.Conditions, rolloutv1.ConditionDegraded)
		return c != nil && c.Reason == rolloutv1.ReasonInvalidStatus && strings.Contains(c.Message, "status.maxUnavailable 0 in phase Upgrading")
	})
	w.assertStill(t, g, "edited", 6*time.Second)
	w.patchStatus(t, "edited", `{"status":{"maxUnavailable":1}}`)
	ro = w.waitRollout(t, "edited", "Succeeded", rolloutHang, phaseIs(rolloutv1.PhaseSucceeded))
	w.assertReplaced(t, g, ro, "2")
	events, _ := w.rolloutEvents(ctx, "edited")
	if n := reasonCount(events, rolloutv1.ReasonInvalidStatus, "maxUnavailable 0"); n != 1 {
		t.Errorf("%d InvalidStatus events, want 1", n)
	}
	w.waitWorkloads(t, "edited", ws, 3*time.Minute)
}

// patchStatus merge-patches a rollout's status, as kubectl patch
// --subresource=status --type=merge does.
func (w *rolloutWorld) patchStatus(t *testing.T, name, patch string) {
	t.Helper()
	ro, err := w.rollout(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.client.Status().Patch(t.Context(), ro, client.RawPatch("application/merge-patch+json", []byte(patch))); err != nil {
		t.Fatalf("status patch %s: %v", patch, err)
	}
}

// assertStill watches a rollout for d: its status does not move on and
// the controller asks Auto Scaling for no change of its group.
func (w *rolloutWorld) assertStill(t *testing.T, g group, name string, d time.Duration) {
	t.Helper()
	before, err := w.rollout(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	mark := len(w.asg.Requests())
	members := map[string]bool{}
	for _, in := range w.asg.Instances(g.name) {
		members[in.ID] = true
	}
	time.Sleep(d)
	after, err := w.rollout(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	if after.ResourceVersion != before.ResourceVersion {
		t.Errorf("rollout %s written while not acted on:\nbefore %s\nafter %s", name, statusJSON(before), statusJSON(after))
	}
	for _, r := range w.asg.Requests()[mark:] {
		if r.Get("Action") != awstest.ActionDescribeAutoScalingGroups && (r.Get("AutoScalingGroupName") == g.name || members[r.Get("InstanceId")]) {
			t.Errorf("Auto Scaling changed while the status was not trusted: %v", r)
		}
	}
	t.Logf("rollout %s still for %s: phase %s, batch %d", name, d, after.Status.Phase, after.Status.Batch)
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
