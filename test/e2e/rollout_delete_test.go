//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// deleteHang bounds the wait for a deleted rollout to go: the abort of
// the small groups below takes seconds; a finalizer that never lets go
// fails the test in this time, not rolloutHang's.
const deleteHang = 3 * time.Minute

// TestRolloutDelete deletes rollouts where the abort the deletion runs
// meets something harder than a drain: new instances still launching, a
// controller killed meanwhile, a group deleted under it, an AWS policy
// that denies the controller. It runs its subtests one at a time: the
// last one makes the Auto Scaling stub deny every group's description.
func TestRolloutDelete(t *testing.T) {
	env := loadEnv(t)
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	w := startRolloutWorld(t, env, port)
	t.Run("ScalingUp, surge launching, controller killed", func(t *testing.T) { testDeleteLaunchingSurge(t, w) })
	t.Run("group deleted first", func(t *testing.T) { testDeleteGroupGone(t, w) })
	t.Run("two rollouts of one group, the first deleted", func(t *testing.T) { testDeleteOneOfTwo(t, w) })
	t.Run("access denied, then re-created", func(t *testing.T) { testDeleteAccessDenied(t, w) })
}

// testDeleteOneOfTwo starts a second rollout of a group while the first
// runs: it waits, saying for which, and starts once the first is deleted
// (and its abort restored the group), from the group's real sizes.
func testDeleteOneOfTwo(t *testing.T, w *rolloutWorld) {
	g := w.createGroup(t, "pair", 4, "us-west-2a", "us-west-2b")
	if out, err := w.cli(t, startArgs("first", g.name)...); err != nil {
		t.Fatalf("start: %v\n%s", err, out)
	}
	w.waitRollout(t, "first", "the first batch", rolloutHang, func(ro *rolloutv1.NodeGroupRollout) bool { return ro.Status.Batch >= 1 })
	if out, err := w.cli(t, startArgs("second", g.name)...); err != nil {
		t.Fatalf("start: %v\n%s", err, out)
	}
	w.waitRollout(t, "second", "waiting for the first", deleteHang, func(ro *rolloutv1.NodeGroupRollout) bool {
		return strings.Contains(ro.Status.Message, "waiting: rollout first holds Auto Scaling group pair")
	})
	if ro, err := w.rollout(t.Context(), "second"); err != nil || ro.Status.Phase != "" || ro.Status.Original != nil {
		t.Fatalf("second rollout %v: phase %q original %+v while the first runs; want it not started", err, ro.Status.Phase, ro.Status.Original)
	}
	w.deleteRollout(t, "first")
	w.waitGone(t, "first")
	ro := w.waitRollout(t, "second", "Succeeded", rolloutHang, phaseIs(rolloutv1.PhaseSucceeded))
	if o := ro.Status.Original; o.DesiredCapacity != 4 || o.MaxSize != 4 || o.LaunchTemplate.Version != "1" {
		t.Errorf("second rollout recorded the group as %+v, want 4/4 at version 1 (restored by the first's abort)", o)
	}
	w.assertRestored(t, g, ro.Status.Target.Version)
}

// testDeleteLaunchingSurge deletes a rollout while the instances of its
// surge are still Pending, and kills the controller right after: the
// launching instances are removed with decrement, and no old instance is
// terminated (the group's scale-in would pick them: oldest version first).
func testDeleteLaunchingSurge(t *testing.T, w *rolloutWorld) {
	g := w.createGroup(t, "launching", 4, "us-west-2a", "us-west-2b")
	old := map[string]bool{}
	for _, in := range w.asg.Instances(g.name) {
		old[in.ID] = true
	}
	if err := w.asg.SetGroupLaunchDelay(g.name, 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	if out, err := w.cli(t, startArgs("launching", g.name)...); err != nil {
		t.Fatalf("start: %v\n%s", err, out)
	}
	w.waitRollout(t, "launching", "the surge launching", rolloutHang, func(ro *rolloutv1.NodeGroupRollout) bool {
		s, _ := w.asg.Group(g.name)
		return ro.Status.Phase == rolloutv1.PhaseScalingUp && s.Desired > 4 && len(w.asg.Instances(g.name)) == int(s.Desired)
	})
	mark := len(w.asg.Requests())
	w.deleteRollout(t, "launching")
	w.killController(t)
	w.startController(t)
	w.waitGone(t, "launching")
	w.assertRestored(t, g, "1")
	for _, in := range w.asg.Instances(g.name) {
		if !old[in.ID] {
			t.Errorf("instance %s (%s) of the surge left in the group", in.ID, in.LifecycleState)
		}
	}
	terminated := map[string]int{}
	for _, r := range w.asg.Requests()[mark:] {
		if r.Get("Action") == awstest.ActionTerminateInstanceInAutoScalingGroup {
			terminated[r.Get("InstanceId")]++
		}
	}
	for id, n := range terminated {
		if old[id] || n != 1 {
			t.Errorf("instance %s (old %t): %d termination requests; want only the surge's, one each", id, old[id], n)
		}
	}
	if len(w.asg.Instances(g.name)) != 4 {
		t.Errorf("%d instances, want the 4 old ones", len(w.asg.Instances(g.name)))
	}
}

// testDeleteGroupGone deletes a rollout whose group was deleted mid-way:
// it ends Aborted, saying so, rather than being held by its finalizer.
func testDeleteGroupGone(t *testing.T, w *rolloutWorld) {
	g := w.createGroup(t, "gone", 4, "us-west-2a", "us-west-2b")
	if out, err := w.cli(t, startArgs("gone", g.name)...); err != nil {
		t.Fatalf("start: %v\n%s", err, out)
	}
	w.waitRollout(t, "gone", "the first batch", rolloutHang, func(ro *rolloutv1.NodeGroupRollout) bool { return ro.Status.Batch >= 1 })
	if err := w.asg.DeleteGroup(g.name); err != nil {
		t.Fatal(err)
	}
	w.asg.WaitHooks()
	w.deleteRollout(t, "gone")
	w.waitGone(t, "gone")
	w.waitEvent(t, "gone", "Aborted", "Auto Scaling group gone no longer exists")
}

// testDeleteAccessDenied deletes a rollout while the controller may not
// describe groups: the object stays, saying why and how to let it go; a
// rollout of the same name cannot be created meanwhile. Once the access is
// back the abort runs, the object goes, and a new rollout of the same name
// replaces the group from its restored state.
func testDeleteAccessDenied(t *testing.T, w *rolloutWorld) {
	g := w.createGroup(t, "denied", 4, "us-west-2a", "us-west-2b")
	if out, err := w.cli(t, startArgs("denied", g.name)...); err != nil {
		t.Fatalf("start: %v\n%s", err, out)
	}
	w.waitRollout(t, "denied", "the first batch", rolloutHang, func(ro *rolloutv1.NodeGroupRollout) bool { return ro.Status.Batch >= 1 })
	w.asg.FailAlways(awstest.ActionDescribeAutoScalingGroups, awstest.Fault{Status: http.StatusForbidden, Code: "AccessDenied",
		Message: "User: arn:aws:sts::111122223333:assumed-role/nodeboot-rollout/x is not authorized to perform: autoscaling:DescribeAutoScalingGroups"})
	defer w.asg.StopFailing(awstest.ActionDescribeAutoScalingGroups)
	w.deleteRollout(t, "denied")
	ro := w.waitRollout(t, "denied", "the blocked abort reported", deleteHang, func(ro *rolloutv1.NodeGroupRollout) bool {
		c := meta.FindStatusCondition(ro.Status.Conditions, rolloutv1.ConditionDegraded)
		return c != nil && c.Reason == rolloutv1.ReasonAbortBlocked
	})
	if ro.Status.Phase != rolloutv1.PhaseAborting || !strings.Contains(ro.Status.Message, "AccessDenied") ||
		!strings.Contains(ro.Status.Message, "kubectl patch nodegrouprollout denied --type=merge") || !slices.Contains(ro.Finalizers, rolloutv1.Finalizer) {
		t.Errorf("phase %s, finalizers %v, message %q; want Aborting, held, naming AccessDenied and the way out", ro.Status.Phase, ro.Finalizers, ro.Status.Message)
	}
	if out, err := w.cli(t, startArgs("denied", g.name)...); err == nil || !strings.Contains(out, "being deleted") {
		t.Errorf("start of a rollout named as the one being deleted: %v\n%s", err, out)
	}
	w.asg.StopFailing(awstest.ActionDescribeAutoScalingGroups)
	w.waitGone(t, "denied")
	w.assertRestored(t, g, "1")
	if out, err := w.cli(t, startArgs("denied", g.name)...); err != nil {
		t.Fatalf("start again: %v\n%s", err, out)
	}
	ro = w.waitRollout(t, "denied", "Succeeded", rolloutHang, phaseIs(rolloutv1.PhaseSucceeded))
	// assertReplaced would count the NodeReplaced Events of the first
	// rollout of the name too.
	for _, in := range w.asg.Instances(g.name) {
		if fmt.Sprint(in.ResolvedVersion) != ro.Status.Target.Version || in.ImageID != newImage {
			t.Errorf("instance %s runs version %d image %s, want %s %s", in.ID, in.ResolvedVersion, in.ImageID, ro.Status.Target.Version, newImage)
		}
	}
	w.assertRestored(t, g, ro.Status.Target.Version)
}

// deleteRollout deletes a rollout without waiting (kubectl delete
// --wait=false).
func (w *rolloutWorld) deleteRollout(t *testing.T, name string) {
	t.Helper()
	ro, err := w.rollout(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.client.Delete(t.Context(), ro); err != nil {
		t.Fatal(err)
	}
}

// waitGone waits until a deleted rollout is gone (its abort done).
func (w *rolloutWorld) waitGone(t *testing.T, name string) {
	t.Helper()
	err := waitUntil(t.Context(), "rollout "+name+" gone", deleteHang, 200*time.Millisecond, []*process{w.controller()},
		func(ctx context.Context) (bool, string, error) {
			ro, err := w.rollout(ctx, name)
			if apierrors.IsNotFound(err) {
				return true, "", nil
			}
			if err != nil {
				return false, err.Error(), nil
			}
			return false, fmt.Sprintf("%s: %s", ro.Status.Phase, ro.Status.Message), nil
		})
	if err != nil {
		t.Fatal(err)
	}
}

// waitEvent waits for an Event on the rollout (the recorder writes them in
// the background).
func (w *rolloutWorld) waitEvent(t *testing.T, name, reason, substr string) {
	t.Helper()
	err := waitUntil(t.Context(), fmt.Sprintf("Event %s %q on %s", reason, substr, name), time.Minute, 200*time.Millisecond, []*process{w.controller()},
		func(ctx context.Context) (bool, string, error) {
			events, err := w.rolloutEvents(ctx, name)
			if err != nil {
				return false, err.Error(), nil
			}
			return reasonCount(events, reason, substr) > 0, fmt.Sprint(eventReasons(events)), nil
		})
	if err != nil {
		t.Error(err)
	}
}

// assertRestored checks a group after an abort: its sizes and launch
// template version as before, no Node of it marked by the rollout.
func (w *rolloutWorld) assertRestored(t *testing.T, g group, version string) {
	t.Helper()
	s, _ := w.asg.Group(g.name)
	if s.MinSize != 1 || s.MaxSize != int32(g.size) || s.Desired != int32(g.size) || s.LaunchTemplateVersion != version {
		t.Errorf("group %s: settings %+v; want 1/%d/%d at version %s", g.name, s, g.size, g.size, version)
	}
	nodes, err := w.groupNodes(t.Context(), g.name)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if n.Spec.Unschedulable || len(n.Spec.Taints) > 0 || n.Labels[plan.LabelExcludeLB] != "" || n.Annotations[plan.AnnotationCordonedBy] != "" {
			t.Errorf("node %s still marked: unschedulable %t taints %v labels %v", n.Name, n.Spec.Unschedulable, n.Spec.Taints, n.Labels)
		}
	}
}
