//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/admission"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

// testAdmission creates every rollout admission's unit tests refuse on the
// real API server: each is refused, with the message the command line's
// check gives (exactly, but for the value of a failed CEL rule, which API
// servers before v1.35 print as the schema type: admission.AnswerPattern);
// the accepted ones pass a server-side dry run. The command line itself
// refuses flags with the API server's own message.
func testAdmission(t *testing.T, w *rolloutWorld) {
	ctx := t.Context()
	checker, err := admission.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range admission.BadRollouts() {
		apiErr := w.client.Create(ctx, tc.Rollout.DeepCopy(), client.DryRunAll)
		localErr := checker.Check(ctx, tc.Rollout)
		switch {
		case !apierrors.IsInvalid(apiErr):
			t.Errorf("%s: the API server answered %v, want Invalid", tc.Name, apiErr)
		case localErr == nil || !sameAnswer(apiErr.Error(), localErr.Error()):
			t.Errorf("%s:\nAPI server: %v\ncommand line: %v", tc.Name, apiErr, localErr)
		}
	}
	for _, tc := range admission.GoodRollouts() {
		if err := w.client.Create(ctx, tc.Rollout.DeepCopy(), client.DryRunAll); err != nil {
			t.Errorf("%s: the API server refused it: %v", tc.Name, err)
		}
	}
	raw := unstructuredRollout("abc-drain", "abc")
	if err := w.client.Create(ctx, raw, client.DryRunAll); !apierrors.IsInvalid(err) ||
		!strings.Contains(err.Error(), `spec.timeouts.drain: Invalid value: "string": must be a duration from 0 to 168h`) {
		t.Errorf("timeouts.drain: abc: the API server answered %v", err)
	}
	for _, flags := range [][]string{
		{"--max-unavailable", "050%"}, {"--launch-template-version", "0"}, {"--region", "mars"}, {"--node-label", "team name=blue"},
		{"--drain-timeout", "1d"}, {"--drain-timeout", "+1s"},
	} {
		out, err := w.cli(t, append([]string{"start", "cli-check", "--group", "g", "--dry-run"}, flags...)...)
		apiMsg := w.apiMessageFor(t, flags)
		if err == nil || !regexp.MustCompile(admission.AnswerPattern(apiMsg)).MatchString(out) {
			t.Errorf("start %v: %v\n%s\nwant the API server's message %q", flags, err, out, apiMsg)
		}
	}
}

// sameAnswer reports whether local is the API server's answer, as
// admission.AnswerPattern allows.
func sameAnswer(answer, local string) bool {
	return regexp.MustCompile(`^(?:` + admission.AnswerPattern(answer) + `)$`).MatchString(local)
}

// apiMessageFor is the API server's answer to a rollout like the command
// line's, changed as flags say.
func (w *rolloutWorld) apiMessageFor(t *testing.T, flags []string) string {
	t.Helper()
	out, err := w.cli(t, "start", "cli-check", "--group", "g", "--dry-run")
	if err != nil {
		t.Fatalf("start --dry-run: %v\n%s", err, out)
	}
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(out), &u.Object); err != nil {
		t.Fatal(err)
	}
	switch flags[0] {
	case "--max-unavailable":
		_ = unstructured.SetNestedField(u.Object, flags[1], "spec", "maxUnavailable")
	case "--launch-template-version":
		_ = unstructured.SetNestedField(u.Object, flags[1], "spec", "launchTemplateVersion")
	case "--region":
		_ = unstructured.SetNestedField(u.Object, flags[1], "spec", "nodeGroup", "region")
	case "--drain-timeout":
		_ = unstructured.SetNestedField(u.Object, flags[1], "spec", "timeouts", "drain")
	case "--node-label":
		k, v, _ := strings.Cut(flags[1], "=")
		_ = unstructured.SetNestedStringMap(u.Object, map[string]string{k: v}, "spec", "newNodes", "labels")
	}
	err = w.client.Create(t.Context(), u, client.DryRunAll)
	if !apierrors.IsInvalid(err) {
		t.Fatalf("%v: the API server answered %v, want Invalid", flags, err)
	}
	return err.Error()
}

// unstructuredRollout is a rollout whose timeouts.drain is drain, as is.
func unstructuredRollout(name, drain string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(rolloutv1.SchemeGroupVersion.String())
	u.SetKind(rolloutv1.Kind)
	u.SetName(name)
	_ = unstructured.SetNestedField(u.Object, "no-such-group", "spec", "nodeGroup", "autoScalingGroupName")
	_ = unstructured.SetNestedField(u.Object, drain, "spec", "timeouts", "drain")
	return u
}

// storeUndecodable stores a rollout with timeouts.drain: abc, as one stored
// before the CRD validated durations: it installs the CRD without that
// rule, creates the object, and installs the real CRD again.
func (w *rolloutWorld) storeUndecodable(t *testing.T, name string) {
	t.Helper()
	ctx := t.Context()
	data, err := os.ReadFile(filepath.Join(w.env.repo, "deploy", "rollout", "nodeboot.io_nodegrouprollouts.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var real apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &real); err != nil {
		t.Fatal(err)
	}
	w.setDrainRule(t, &real, false)
	err = waitUntil(ctx, "the relaxed CRD to accept timeouts.drain: abc", time.Minute, 200*time.Millisecond, w.c.procs.procs,
		func(ctx context.Context) (bool, string, error) {
			err := w.client.Create(ctx, unstructuredRollout(name, "abc"))
			return err == nil, fmt.Sprint(err), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	w.setDrainRule(t, &real, true)
}

// setDrainRule installs the CRD crd, with or without its rule on
// timeouts.drain.
func (w *rolloutWorld) setDrainRule(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, keep bool) {
	t.Helper()
	ctx := t.Context()
	var cur apiextensionsv1.CustomResourceDefinition
	if err := w.client.Get(ctx, types.NamespacedName{Name: crd.Name}, &cur); err != nil {
		t.Fatal(err)
	}
	next := crd.DeepCopy()
	next.ResourceVersion = cur.ResourceVersion
	if !keep {
		drain := next.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["timeouts"].Properties["drain"]
		drain.XValidations, drain.MaxLength = nil, nil
		next.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["timeouts"].Properties["drain"] = drain
	}
	if err := w.client.Update(ctx, next); err != nil {
		t.Fatalf("update the CRD: %v", err)
	}
}

// restartController stops the controller gracefully (it hands its Lease
// over) and starts it again.
func (w *rolloutWorld) restartController(t *testing.T) {
	t.Helper()
	p := w.controller()
	p.stop(30 * time.Second)
	w.c.procs.procs = slices.DeleteFunc(w.c.procs.procs, func(q *process) bool { return q == p })
	w.startController(t)
}

// waitInvalidObjectReported waits for the controller to report on the
// undecodable rollout.
func (w *rolloutWorld) waitInvalidObjectReported(t *testing.T, name string) {
	t.Helper()
	err := waitUntil(t.Context(), "rollout "+name+" reported as undecodable", rolloutHang, 200*time.Millisecond, []*process{w.controller()},
		func(ctx context.Context) (bool, string, error) {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(rolloutv1.SchemeGroupVersion.WithKind(rolloutv1.Kind))
			if err := w.client.Get(ctx, types.NamespacedName{Name: name}, u); err != nil {
				return false, err.Error(), nil
			}
			msg, _, _ := unstructured.NestedString(u.Object, "status", "message")
			conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			for _, c := range conds {
				if m, ok := c.(map[string]any); ok && m["type"] == rolloutv1.ConditionDegraded && m["status"] == "True" &&
					m["reason"] == rolloutv1.ReasonInvalidObject && strings.Contains(msg, `invalid duration "abc"`) {
					return true, "", nil
				}
			}
			return false, "message " + msg, nil
		})
	if err != nil {
		t.Fatal(err)
	}
}

// testDelete deletes a rollout during its second batch: the finalizer
// holds the deletion until the abort restored the group and released the
// nodes, then the rollout is gone.
func testDelete(t *testing.T, w *rolloutWorld) {
	g := w.createGroup(t, "delete", 4, "us-west-2a", "us-west-2b")
	ws := []workload{{kind: "Deployment", name: "app", replicas: 3, minAvailable: 2, watched: true}}
	w.deployWorkloads(t, "delete", g.name, ws)
	if out, err := w.cli(t, startArgs("delete", g.name, "--post-drain-wait", "2s")...); err != nil {
		t.Fatalf("start: %v\n%s", err, out)
	}
	ro := w.waitRollout(t, "delete", "the second batch", rolloutHang, func(ro *rolloutv1.NodeGroupRollout) bool { return ro.Status.Batch >= 2 })
	if !strings.Contains(strings.Join(ro.Finalizers, ","), rolloutv1.Finalizer) {
		t.Fatalf("finalizers %v of an active rollout, want %s", ro.Finalizers, rolloutv1.Finalizer)
	}
	if err := w.client.Delete(t.Context(), ro); err != nil {
		t.Fatal(err)
	}
	w.waitGone(t, "delete")
	settings, _ := w.asg.Group(g.name)
	if settings.Desired != 4 || settings.MaxSize != 4 || settings.LaunchTemplateVersion != "1" {
		t.Errorf("group settings %+v after the deletion, want sizes 4/4 and launch template version 1 restored", settings)
	}
	nodes, err := w.groupNodes(t.Context(), g.name)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if n.Spec.Unschedulable || len(n.Spec.Taints) > 0 || n.Annotations[plan.AnnotationCordonedBy] != "" {
			t.Errorf("node %s still marked after the deletion: unschedulable %t taints %v", n.Name, n.Spec.Unschedulable, n.Spec.Taints)
		}
	}
	// The recorder writes Events in the background: the last ones may
	// arrive after the rollout is gone.
	err = waitUntil(t.Context(), "Events Aborting (being deleted) and Aborted", time.Minute, 200*time.Millisecond, []*process{w.controller()},
		func(ctx context.Context) (bool, string, error) {
			events, err := w.rolloutEvents(ctx, "delete")
			if err != nil {
				return false, err.Error(), nil
			}
			done := reasonCount(events, "Aborting", "being deleted") > 0 && reasonCount(events, "Aborted", "") > 0
			return done, fmt.Sprint(eventReasons(events)), nil
		})
	if err != nil {
		t.Error(err)
	}
	w.waitWorkloads(t, "delete", ws, 3*time.Minute)
}

func eventReasons(events []corev1.Event) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.Reason)
	}
	return out
}

// conditionSampler records the distinct conditions a rollout shows.
type conditionSampler struct {
	seen map[string]bool
	done chan struct{}
	stop context.CancelFunc
}

// sampleConditions polls a rollout's conditions every 100 ms until stopped.
func (w *rolloutWorld) sampleConditions(ctx context.Context, name string) *conditionSampler {
	ctx, stop := context.WithCancel(ctx)
	s := &conditionSampler{seen: map[string]bool{}, done: make(chan struct{}), stop: stop}
	go func() {
		defer close(s.done)
		for ctx.Err() == nil {
			if ro, err := w.rollout(ctx, name); err == nil {
				s.seen[conditionSummary(ro)] = true
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	return s
}

// finish stops sampling and returns what was seen.
func (s *conditionSampler) finish() map[string]bool {
	s.stop()
	<-s.done
	return s.seen
}

// conditionSummary is Ready, Progressing, Degraded as status/reason.
func conditionSummary(ro *rolloutv1.NodeGroupRollout) string {
	var parts []string
	for _, typ := range []string{rolloutv1.ConditionReady, rolloutv1.ConditionProgressing, rolloutv1.ConditionDegraded} {
		c := meta.FindStatusCondition(ro.Status.Conditions, typ)
		if c == nil {
			parts = append(parts, typ+"=?")
			continue
		}
		parts = append(parts, fmt.Sprintf("%s=%s/%s", typ, c.Status, c.Reason))
	}
	return strings.Join(parts, " ")
}

// assertConditionsSeen checks that every summary in want was sampled.
func assertConditionsSeen(t *testing.T, seen map[string]bool, want ...string) {
	t.Helper()
	for _, w := range want {
		if !seen[w] {
			t.Errorf("conditions %q never seen; seen %v", w, seen)
		}
	}
}
