//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// Durations of the rollouts under test: small waits, and limits that only
// catch a hang (nothing asserts a duration).
const (
	rolloutPostDrainWait = "1s"
	rolloutEvictionRetry = "1s"
	rolloutHang          = 10 * time.Minute
)

// newImage is the AMI the rollouts move to.
const newImage = "ami-0000000000000000b"

// TestRollout replaces kwok node groups behind the Auto Scaling stub with
// the nodeboot-rollout controller on the suite's real control plane.
func TestRollout(t *testing.T) {
	env := loadEnv(t)
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	w := startRolloutWorld(t, env, port)
	t.Run("admission", func(t *testing.T) { testAdmission(t, w) })
	// An object stored before the CRD validated it, which the typed API
	// cannot decode: a controller started with it present must report it
	// and run every other rollout below.
	w.storeUndecodable(t, "broken")
	w.restartController(t)
	w.waitInvalidObjectReported(t, "broken")
	t.Run("default strategy, 30 nodes, 3 zones, 10%", func(t *testing.T) { testDefaultRollout(t, w) })
	t.Run("more", func(t *testing.T) {
		t.Run("aggressive budget then force", func(t *testing.T) { t.Parallel(); testAggressiveBudget(t, w) })
		t.Run("minimal strategy", func(t *testing.T) { t.Parallel(); testMinimal(t, w) })
		t.Run("pause and resume", func(t *testing.T) { t.Parallel(); testPauseResume(t, w) })
		t.Run("abort", func(t *testing.T) { t.Parallel(); testAbort(t, w) })
		t.Run("deleted mid-way", func(t *testing.T) { t.Parallel(); testDelete(t, w) })
		t.Run("edited status", func(t *testing.T) { t.Parallel(); testEditedStatus(t, w) })
	})
	w.waitInvalidObjectReported(t, "broken")
}

// startArgs are the CLI arguments of a rollout to newImage.
func startArgs(name, group string, extra ...string) []string {
	return append([]string{"start", name, "--group", group, "--image-id", newImage,
		"--post-drain-wait", rolloutPostDrainWait, "--eviction-retry-interval", rolloutEvictionRetry,
		"--node-creation-timeout", "5m"}, extra...)
}

func testDefaultRollout(t *testing.T, w *rolloutWorld) {
	ctx := t.Context()
	began := time.Now()
	g := w.createGroup(t, "main", 30, "us-west-2a", "us-west-2b", "us-west-2c")
	ws := []workload{
		{kind: "Deployment", name: "web", replicas: 12, minAvailable: 10, watched: true},
		{kind: "Deployment", name: "api", replicas: 6, minAvailable: 5, watched: true},
		{kind: "StatefulSet", name: "db", replicas: 3, minAvailable: 2, watched: true},
		{kind: "DaemonSet", name: "agent"},
		{kind: "Deployment", name: "tolerant", replicas: 2, tolerateAll: true},
		{kind: "Deployment", name: "cache", replicas: 2, emptyDir: true},
		{kind: "Deployment", name: "singleton", replicas: 1},
		// hold blocks its node's drain until the test relaxes its budget,
		// which gives a certain moment to kill the controller mid-drain.
		{kind: "Deployment", name: "hold", replicas: 2, minAvailable: 2},
	}
	w.deployWorkloads(t, "main", g.name, ws)
	t.Logf("30 kwok nodes and their workloads ready in %s", time.Since(began).Round(time.Millisecond))

	out, err := w.cli(t, "plan", "--group", g.name, "--image-id", newImage, "--max-unavailable", "10%", "--post-drain-wait", rolloutPostDrainWait)
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	t.Logf("plan:\n%s", out)
	for _, want := range []string{"outdated:  30 of 30 instances", "surge 6 nodes, then 10 batches of up to 3 nodes",
		"ToleratesAllTaints", "EmptyDir", "SingleReplica", "PDBNeverAllows: main/hold allows 0 disruptions"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan output lacks %q", want)
		}
	}

	watcher := w.watchBudgets(ctx, "main", ws, 100*time.Millisecond)
	if out, err := w.cli(t, startArgs("main", g.name, "--max-unavailable", "10%", "--drain-timeout", "10m")...); err != nil {
		t.Fatalf("start: %v\n%s", err, out)
	}
	conditions := w.sampleConditions(ctx, "main")

	// Kill the controller while a node is blocked on hold, restart it.
	blocked := w.waitRollout(t, "main", "a drain blocked by main/hold", rolloutHang, func(ro *rolloutv1.NodeGroupRollout) bool {
		return blockedNode(ro, "main/hold") != nil
	})
	victim := *blockedNode(blocked, "main/hold")
	t.Logf("killing the controller while %s drains (blocked by %s)", victim.Name, victim.Blockers[0].Pod)
	w.killController(t)
	w.startController(t)
	resumed := w.waitRollout(t, "main", "the restarted controller evicting again on "+victim.Name, rolloutHang, func(ro *rolloutv1.NodeGroupRollout) bool {
		p := progressOf(ro, victim.InstanceID)
		return p != nil && p.Evictions > victim.Evictions
	})
	if p := progressOf(resumed, victim.InstanceID); p.Step != rolloutv1.StepDraining || !p.DrainStartTime.Equal(victim.DrainStartTime) || p.Batch != victim.Batch {
		t.Errorf("after the restart %s is %+v; want the same drain (started %s, batch %d) continued", victim.Name, p, victim.DrainStartTime, victim.Batch)
	}
	relaxBudget(t, w, "main", "hold", 1)

	ro := w.waitRollout(t, "main", "Succeeded", rolloutHang, phaseIs(rolloutv1.PhaseSucceeded))
	seen := conditions.finish()
	seen[conditionSummary(ro)] = true // the sampler may stop before its next sample
	assertConditionsSeen(t, seen,
		"Ready=False/Upgrading Progressing=True/Upgrading Degraded=False/AsExpected",
		"Ready=True/Succeeded Progressing=False/Succeeded Degraded=False/AsExpected")
	samples, lowest, below := watcher.finish()
	t.Logf("rollout main took %s (status times, whole seconds; includes the controller restart and its Lease takeover); budget watcher: %d samples, lowest ready %v",
		ro.Status.CompletionTime.Sub(ro.Status.StartTime.Time), samples, lowest)
	for _, b := range below {
		t.Errorf("budget violated: %s", b)
	}
	if samples < 10 {
		t.Errorf("budget watcher took only %d samples", samples)
	}
	w.assertReplaced(t, g, ro, "2")
	w.assertOneTerminationEach(t, g)
	w.waitWorkloads(t, "main", ws, 3*time.Minute)
	if ro.Status.Surge != 6 || ro.Status.MaxUnavailable != 3 || ro.Status.Batch != 10 {
		t.Errorf("surge %d, max unavailable %d, batches %d; want 6, 3 (10%% of 30), 10", ro.Status.Surge, ro.Status.MaxUnavailable, ro.Status.Batch)
	}
}

// blockedNode returns a draining node blocked by the budget.
func blockedNode(ro *rolloutv1.NodeGroupRollout, budget string) *rolloutv1.NodeProgress {
	for i := range ro.Status.Nodes {
		p := &ro.Status.Nodes[i]
		if p.Step != rolloutv1.StepDraining {
			continue
		}
		for _, b := range p.Blockers {
			if slices.Contains(b.PodDisruptionBudgets, budget) && b.Reason == rolloutv1.BlockedByPDB {
				return p
			}
		}
	}
	return nil
}

func progressOf(ro *rolloutv1.NodeGroupRollout, instance string) *rolloutv1.NodeProgress {
	for i := range ro.Status.Nodes {
		if ro.Status.Nodes[i].InstanceID == instance {
			return &ro.Status.Nodes[i]
		}
	}
	return nil
}

func relaxBudget(t *testing.T, w *rolloutWorld, ns, name string, minAvailable int32) {
	t.Helper()
	pdb := &policyv1.PodDisruptionBudget{}
	if err := w.client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, pdb); err != nil {
		t.Fatal(err)
	}
	v := intstr.FromInt32(minAvailable)
	pdb.Spec.MinAvailable = &v
	if err := w.client.Update(t.Context(), pdb); err != nil {
		t.Fatal(err)
	}
}

// assertReplaced checks the end state of a finished rollout: every
// instance and Node of the group at the target version, none cordoned or
// tainted, the group's sizes as before and its launch template at the
// target, one status entry per replaced node.
func (w *rolloutWorld) assertReplaced(t *testing.T, g group, ro *rolloutv1.NodeGroupRollout, version string) {
	t.Helper()
	instances := w.asg.Instances(g.name)
	for _, in := range instances {
		if fmt.Sprint(in.ResolvedVersion) != version || in.ImageID != newImage {
			t.Errorf("instance %s runs version %d image %s, want %s %s", in.ID, in.ResolvedVersion, in.ImageID, version, newImage)
		}
	}
	settings, _ := w.asg.Group(g.name)
	if len(instances) != g.size || settings.Desired != int32(g.size) || settings.MaxSize != int32(g.size) || settings.MinSize != 1 || settings.LaunchTemplateVersion != version {
		t.Errorf("group %s: %d instances, settings %+v; want %d and the sizes restored at version %s", g.name, len(instances), settings, g.size, version)
	}
	err := waitUntil(t.Context(), "the group's Nodes at version "+version, time.Minute, 200*time.Millisecond, w.c.procs.procs, func(ctx context.Context) (bool, string, error) {
		nodes, err := w.groupNodes(ctx, g.name)
		if err != nil {
			return false, "", err
		}
		var bad []string
		for _, n := range nodes {
			if n.Labels[plan.LabelSourceLaunchTemplateVersion] != version || n.Spec.Unschedulable || len(n.Spec.Taints) > 0 || !plan.NodeReady(&n) {
				bad = append(bad, n.Name)
			}
		}
		return len(nodes) == g.size && len(bad) == 0, fmt.Sprintf("%d nodes, not right: %v", len(nodes), bad), nil
	})
	if err != nil {
		t.Error(err)
	}
	// The status keeps only the nodes in flight; each replaced one is
	// counted and told by a NodeReplaced Event naming its instance.
	if len(ro.Status.Nodes) != 0 || int(ro.Status.NodesReplaced) != g.size || int(ro.Status.NodesTotal) != g.size {
		t.Errorf("status lists %d nodes, replaced %d of %d; want none listed and %d replaced", len(ro.Status.Nodes), ro.Status.NodesReplaced, ro.Status.NodesTotal, g.size)
	}
	current := map[string]bool{}
	for _, in := range instances {
		current[in.ID] = true
	}
	err = waitUntil(t.Context(), "a NodeReplaced Event for each old instance", time.Minute, 200*time.Millisecond, w.c.procs.procs, func(ctx context.Context) (bool, string, error) {
		events, err := w.rolloutEvents(ctx, ro.Name)
		if err != nil {
			return false, "", err
		}
		replaced := replacedInstances(events)
		for id := range replaced {
			if current[id] {
				return false, "", fmt.Errorf("NodeReplaced names instance %s, still in the group", id)
			}
		}
		return len(replaced) == g.size, fmt.Sprintf("%d instances replaced", len(replaced)), nil
	})
	if err != nil {
		t.Error(err)
	}
}

// replacedInstances returns the instance IDs NodeReplaced Events name
// ("node NAME (ID): ...").
func replacedInstances(events []corev1.Event) map[string]bool {
	out := map[string]bool{}
	for _, e := range events {
		if e.Reason != "NodeReplaced" {
			continue
		}
		if _, rest, ok := strings.Cut(e.Message, " ("); ok {
			if id, _, ok := strings.Cut(rest, ")"); ok {
				out[id] = true
			}
		}
	}
	return out
}

// assertOneTerminationEach checks that no instance of the group was asked
// to terminate twice (no node drained and terminated twice, also across
// the controller's restart).
func (w *rolloutWorld) assertOneTerminationEach(t *testing.T, g group) {
	t.Helper()
	count := map[string]int{}
	for _, r := range w.asg.Requests() {
		if r.Get("Action") == awstest.ActionTerminateInstanceInAutoScalingGroup {
			count[r.Get("InstanceId")]++
		}
	}
	n := 0
	for id, c := range count {
		if c != 1 {
			t.Errorf("instance %s: %d termination requests, want 1", id, c)
		}
		n++
	}
	if n < g.size {
		t.Errorf("%d instances terminated, want at least the %d old ones", n, g.size)
	}
}

func testAggressiveBudget(t *testing.T, w *rolloutWorld) {
	g := w.createGroup(t, "strict", 3, "us-west-2a")
	ws := []workload{{kind: "Deployment", name: "strict", replicas: 2, minAvailable: 2}}
	w.deployWorkloads(t, "strict", g.name, ws)
	if out, err := w.cli(t, startArgs("strict", g.name, "--order", "Name", "--drain-timeout", "8s")...); err != nil {
		t.Fatalf("start: %v\n%s", err, out)
	}
	ro := w.waitRollout(t, "strict", "PodEvictionFailure", rolloutHang, phaseIs(rolloutv1.PhaseFailed))
	if got, want := conditionSummary(ro), "Ready=False/PodEvictionFailure Progressing=False/PodEvictionFailure Degraded=True/PodEvictionFailure"; got != want {
		t.Errorf("conditions of the failed rollout %q, want %q", got, want)
	}
	f := ro.Status.Failure
	if f.Code != rolloutv1.PodEvictionFailure || !strings.Contains(f.Message, "pod strict/strict-") || !strings.Contains(f.Message, "blocked by PodDisruptionBudget strict/strict") {
		t.Fatalf("failure %+v, want PodEvictionFailure naming the pod and strict/strict", f)
	}
	events, err := w.rolloutEvents(t.Context(), "strict")
	if err != nil {
		t.Fatal(err)
	}
	var blockedAt time.Time
	for _, e := range events {
		if e.Reason == "PodEvictionBlocked" && strings.Contains(e.Message, "pod strict/strict-") && strings.Contains(e.Message, "PodDisruptionBudget strict/strict") {
			blockedAt = e.FirstTimestamp.Time
		}
	}
	if blockedAt.IsZero() || !blockedAt.Before(f.Time.Time) {
		t.Errorf("PodEvictionBlocked event at %s, failure at %s; want the blocker named while it blocked, before the failure", blockedAt, f.Time)
	}
	out, err := w.cli(t, "status", "strict")
	if err != nil || !strings.Contains(out, "FAILED PodEvictionFailure") || !strings.Contains(out, "blocking on ") {
		t.Errorf("status: %v\n%s", err, out)
	}
	if out, err := w.cli(t, "resume", "strict", "--force"); err != nil {
		t.Fatalf("resume --force: %v\n%s", err, out)
	}
	ro = w.waitRollout(t, "strict", "Succeeded after force", rolloutHang, phaseIs(rolloutv1.PhaseSucceeded))
	if got, want := conditionSummary(ro), "Ready=True/Succeeded Progressing=False/Succeeded Degraded=False/AsExpected"; got != want {
		t.Errorf("conditions after force %q, want %q", got, want)
	}
	w.assertReplaced(t, g, ro, "2")
	w.waitWorkloads(t, "strict", ws, 3*time.Minute)
}

func testMinimal(t *testing.T, w *rolloutWorld) {
	g := w.createGroup(t, "minimal", 6, "us-west-2a", "us-west-2b", "us-west-2c")
	ws := []workload{{kind: "Deployment", name: "app", replicas: 4, minAvailable: 3, watched: true}}
	w.deployWorkloads(t, "minimal", g.name, ws)
	watcher := w.watchBudgets(t.Context(), "minimal", ws, 100*time.Millisecond)
	if out, err := w.cli(t, startArgs("minimal", g.name, "--strategy", "Minimal", "--max-unavailable", "2")...); err != nil {
		t.Fatalf("start: %v\n%s", err, out)
	}
	// status --watch follows the rollout to its end.
	cmd := exec.CommandContext(t.Context(), w.bin, "status", "minimal", "--watch", "--kubeconfig="+w.adminKubeconfig)
	outWatch, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("status --watch: %v\n%s", err, outWatch)
	}
	if s := string(outWatch); !strings.Contains(s, "nodegrouprollout minimal: Succeeded") || !strings.Contains(s, "6/6 nodes replaced, batch 3") {
		t.Errorf("status --watch output lacks the progress:\n%s", s)
	}
	ro := w.waitRollout(t, "minimal", "Succeeded", rolloutHang, phaseIs(rolloutv1.PhaseSucceeded))
	_, _, below := watcher.finish()
	for _, b := range below {
		t.Errorf("budget violated: %s", b)
	}
	w.assertReplaced(t, g, ro, "2")
	w.assertOneTerminationEach(t, g)
	for _, r := range w.asg.Requests() {
		if r.Get("AutoScalingGroupName") == g.name && r.Get("DesiredCapacity") != "" && r.Get("DesiredCapacity") != "6" {
			t.Errorf("minimal strategy changed the desired capacity: %v", r)
		}
	}
	if ro.Status.Surge != 0 || ro.Status.Batch != 3 {
		t.Errorf("surge %d batches %d, want 0 and 3", ro.Status.Surge, ro.Status.Batch)
	}
	w.waitWorkloads(t, "minimal", ws, 3*time.Minute)
}

func testPauseResume(t *testing.T, w *rolloutWorld) {
	g := w.createGroup(t, "pause", 4, "us-west-2a", "us-west-2b")
	ws := []workload{{kind: "Deployment", name: "app", replicas: 2}}
	w.deployWorkloads(t, "pause", g.name, ws)
	if out, err := w.cli(t, startArgs("pause", g.name, "--post-drain-wait", "3s")...); err != nil {
		t.Fatalf("start: %v\n%s", err, out)
	}
	w.waitRollout(t, "pause", "the first batch", rolloutHang, func(ro *rolloutv1.NodeGroupRollout) bool { return ro.Status.Batch >= 1 })
	if out, err := w.cli(t, "pause", "pause"); err != nil {
		t.Fatalf("pause: %v\n%s", err, out)
	}
	paused := w.waitRollout(t, "pause", "Paused", rolloutHang, phaseIs(rolloutv1.PhasePaused))
	mark := len(w.asg.Requests())
	members := map[string]bool{}
	for _, in := range w.asg.Instances(g.name) {
		members[in.ID] = true
	}
	// Watch a while (longer than the post-drain wait and the poll
	// interval): nothing may move.
	time.Sleep(6 * time.Second)
	still, err := w.rollout(t.Context(), "pause")
	if err != nil {
		t.Fatal(err)
	}
	if still.Status.Phase != rolloutv1.PhasePaused || still.Status.NodesReplaced != paused.Status.NodesReplaced || still.Status.Batch != paused.Status.Batch {
		t.Errorf("while paused: %s replaced %d batch %d; was replaced %d batch %d", still.Status.Phase, still.Status.NodesReplaced, still.Status.Batch, paused.Status.NodesReplaced, paused.Status.Batch)
	}
	for _, r := range w.asg.Requests()[mark:] {
		if r.Get("Action") != awstest.ActionDescribeAutoScalingGroups && (r.Get("AutoScalingGroupName") == g.name || members[r.Get("InstanceId")]) {
			t.Errorf("Auto Scaling changed while paused: %v", r)
		}
	}
	if out, err := w.cli(t, "resume", "pause"); err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	ro := w.waitRollout(t, "pause", "Succeeded", rolloutHang, phaseIs(rolloutv1.PhaseSucceeded))
	w.assertReplaced(t, g, ro, "2")
	events, _ := w.rolloutEvents(t.Context(), "pause")
	if reasonCount(events, "Paused", "") == 0 || reasonCount(events, "Resumed", "") == 0 {
		t.Errorf("no Paused/Resumed events")
	}
	w.waitWorkloads(t, "pause", ws, 3*time.Minute)
}

func testAbort(t *testing.T, w *rolloutWorld) {
	g := w.createGroup(t, "abort", 4, "us-west-2a", "us-west-2b")
	ws := []workload{{kind: "Deployment", name: "app", replicas: 3, minAvailable: 2, watched: true}}
	w.deployWorkloads(t, "abort", g.name, ws)
	watcher := w.watchBudgets(t.Context(), "abort", ws, 100*time.Millisecond)
	if out, err := w.cli(t, startArgs("abort", g.name, "--post-drain-wait", "2s")...); err != nil {
		t.Fatalf("start: %v\n%s", err, out)
	}
	w.waitRollout(t, "abort", "the second batch", rolloutHang, func(ro *rolloutv1.NodeGroupRollout) bool { return ro.Status.Batch >= 2 })
	if out, err := w.cli(t, "abort", "abort"); err != nil {
		t.Fatalf("abort: %v\n%s", err, out)
	}
	ro := w.waitRollout(t, "abort", "Aborted", rolloutHang, phaseIs(rolloutv1.PhaseAborted))
	_, _, below := watcher.finish()
	for _, b := range below {
		t.Errorf("budget violated: %s", b)
	}
	settings, _ := w.asg.Group(g.name)
	if settings.Desired != 4 || settings.MaxSize != 4 || settings.MinSize != 1 || settings.LaunchTemplateVersion != "1" {
		t.Errorf("group settings %+v, want sizes 1/4/4 and launch template version 1 restored", settings)
	}
	nodes, err := w.groupNodes(t.Context(), g.name)
	if err != nil {
		t.Fatal(err)
	}
	old := 0
	for _, n := range nodes {
		if n.Spec.Unschedulable || len(n.Spec.Taints) > 0 || n.Labels[plan.LabelExcludeLB] != "" || n.Annotations[plan.AnnotationCordonedBy] != "" {
			t.Errorf("node %s still marked after the abort: unschedulable %t taints %v labels %v", n.Name, n.Spec.Unschedulable, n.Spec.Taints, n.Labels)
		}
		if n.Labels[plan.LabelSourceLaunchTemplateVersion] == "1" {
			old++
		}
	}
	released := 0
	for _, p := range ro.Status.Nodes {
		if p.Step == rolloutv1.StepReleased {
			released++
		}
	}
	if ro.Status.NodesReplaced < 1 || old == 0 || released == 0 || len(w.asg.Instances(g.name)) != 4 {
		t.Errorf("replaced %d, %d old nodes left, %d released, %d instances; want some of each and 4 instances", ro.Status.NodesReplaced, old, released, len(w.asg.Instances(g.name)))
	}
	w.waitWorkloads(t, "abort", ws, 3*time.Minute)
}
