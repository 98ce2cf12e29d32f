package app

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/managerkit"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

func TestMainUsageErrors(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
		wantAlso []string
	}{
		{name: "no command", args: nil, wantCode: ExitUsage, wantErr: "no command given"},
		{name: "unknown command", args: []string{"rollback"}, wantCode: ExitUsage, wantErr: `unknown command "rollback"`},
		{name: "start without a name", args: []string{"start", "--group", "g"}, wantCode: ExitUsage, wantErr: "takes one argument"},
		{name: "start without a group", args: []string{"start", "r1"}, wantCode: ExitUsage, wantErr: "--group is required"},
		{name: "version and image", args: []string{"start", "r1", "--group", "g", "--launch-template-version", "3", "--image-id", "ami-1"}, wantCode: ExitUsage, wantErr: "at most one"},
		{name: "bad strategy", args: []string{"plan", "--group", "g", "--strategy", "Fast"}, wantCode: ExitUsage,
			wantErr: `spec.strategy: Unsupported value: "Fast": supported values: "Default", "Minimal"`},
		{name: "bad percentage", args: []string{"plan", "--group", "g", "--max-unavailable", "150%"}, wantCode: ExitUsage, wantErr: "maxUnavailable is 1..100 or 1%..100%"},
		{name: "percentage with a leading zero", args: []string{"plan", "--group", "g", "--max-unavailable", "050%"}, wantCode: ExitUsage, wantErr: "maxUnavailable is 1..100 or 1%..100%"},
		{name: "count over 100", args: []string{"plan", "--group", "g", "--max-unavailable", "101"}, wantCode: ExitUsage, wantErr: "maxUnavailable is 1..100 or 1%..100%"},
		{name: "version 0", args: []string{"plan", "--group", "g", "--launch-template-version", "0"}, wantCode: ExitUsage,
			wantErr: `spec.launchTemplateVersion: Invalid value: "0": spec.launchTemplateVersion in body should match`},
		{name: "malformed image", args: []string{"plan", "--group", "g", "--image-id", "ami-1"}, wantCode: ExitUsage, wantErr: `spec.imageID: Invalid value: "ami-1"`},
		{name: "bad region", args: []string{"plan", "--group", "g", "--region", "mars"}, wantCode: ExitUsage, wantErr: `spec.nodeGroup.region: Invalid value: "mars"`},
		{name: "bad label", args: []string{"plan", "--group", "g", "--node-label", "novalue"}, wantCode: ExitUsage, wantErr: "KEY=VALUE"},
		{name: "bad label key", args: []string{"plan", "--group", "g", "--node-label", "team name=a"}, wantCode: ExitUsage, wantErr: "keys must be label keys"},
		{name: "bad rollout name", args: []string{"start", "R1", "--group", "g"}, wantCode: ExitUsage, wantErr: `metadata.name: Invalid value: "R1"`},
		{name: "all problems at once", args: []string{"start", "r1", "--order", "Smallest", "--node-label", "x"}, wantCode: ExitUsage,
			wantErr: "--node-label \"x\" is not KEY=VALUE; --group is required; NodeGroupRollout.nodeboot.io \"r1\" is invalid: [",
			wantAlso: []string{`spec.nodeGroup.autoScalingGroupName: Invalid value: "": spec.nodeGroup.autoScalingGroupName in body should be at least 1 chars long`,
				`spec.nodeOrder: Unsupported value: "Smallest": supported values: "Random", "Oldest", "Newest", "Name"`}},
		{name: "negative duration", args: []string{"start", "r1", "--group", "g", "--drain-timeout", "-1s"}, wantCode: ExitUsage,
			wantErr: `spec.timeouts.drain: Invalid value: "-1s": must be a duration from 0 to 168h, such as 90s, 15m or 1h30m`},
		{name: "bad controller flag", args: []string{"controller", "--concurrency", "0"}, wantCode: ExitUsage, wantErr: "must be positive"},
		{name: "pause takes a name", args: []string{"pause"}, wantCode: ExitUsage, wantErr: "takes one argument"},
		{name: "help", args: []string{"help"}, wantCode: ExitOK},
		{name: "command help", args: []string{"status", "--help"}, wantCode: ExitOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Main(context.Background(), tc.args, Env{Stdout: &out, Stderr: &errOut})
			if code != tc.wantCode || !strings.Contains(errOut.String(), tc.wantErr) {
				t.Errorf("code %d stderr %q; want %d and %q", code, errOut.String(), tc.wantCode, tc.wantErr)
			}
			for _, want := range tc.wantAlso {
				if !strings.Contains(errOut.String(), want) {
					t.Errorf("stderr %q; want it to contain %q", errOut.String(), want)
				}
			}
		})
	}
}

func TestStartDryRunPrintsTheSpec(t *testing.T) {
	var out bytes.Buffer
	code := Main(context.Background(), []string{"start", "r1", "--group", "workers", "--region", "eu-west-1", "--image-id", "ami-0123456789abcdef0",
		"--strategy", "Minimal", "--max-unavailable", "25%", "--order", "Oldest", "--no-eks-labels", "--node-label", "team=blue",
		"--drain-timeout", "30m", "--post-drain-wait", "0s", "--dry-run"}, Env{Stdout: &out, Stderr: &out})
	if code != ExitOK {
		t.Fatalf("code %d: %s", code, out.String())
	}
	var ro rolloutv1.NodeGroupRollout
	if err := yaml.UnmarshalStrict(out.Bytes(), &ro); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	s := ro.Spec
	if ro.Name != "r1" || ro.Kind != rolloutv1.Kind || s.NodeGroup.AutoScalingGroupName != "workers" || s.NodeGroup.Region != "eu-west-1" ||
		s.ImageID != "ami-0123456789abcdef0" || s.Strategy != rolloutv1.StrategyMinimal || s.MaxUnavailable.String() != "25%" ||
		s.NodeOrder != rolloutv1.OrderOldest || s.NewNodes.EKSLabels == nil || *s.NewNodes.EKSLabels || s.NewNodes.Labels["team"] != "blue" {
		t.Errorf("spec %+v", s)
	}
	set := plan.SettingsOf(s)
	if set.DrainTimeout != 30*time.Minute || set.PostDrainWait != 0 || set.NodeCreationTimeout != 15*time.Minute {
		t.Errorf("settings %+v", set)
	}
}

func TestWriteStatus(t *testing.T) {
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *metav1.Time { v := metav1.NewTime(start.Add(d)); return &v }
	ro := &rolloutv1.NodeGroupRollout{
		ObjectMeta: metav1.ObjectMeta{Name: "r1"},
		Spec:       rolloutv1.NodeGroupRolloutSpec{NodeGroup: rolloutv1.NodeGroupReference{AutoScalingGroupName: "workers"}},
		Status: rolloutv1.NodeGroupRolloutStatus{
			Phase: rolloutv1.PhaseUpgrading, Batch: 2, NodesTotal: 10, NodesReplaced: 5, Surge: 6, MaxUnavailable: 3, StartTime: at(0),
			Target:  &rolloutv1.LaunchTemplateVersion{ID: "lt-1", Version: "7"},
			Message: "batch 2: 1 draining",
			Nodes: []rolloutv1.NodeProgress{
				{Name: "old-1", InstanceID: "i-1", Batch: 1, Step: rolloutv1.StepTerminated},
				{Name: "old-2", InstanceID: "i-2", Zone: "us-west-2a", Batch: 2, Step: rolloutv1.StepDraining, Evictions: 4, DrainStartTime: at(time.Minute),
					Blockers: []rolloutv1.PodBlocker{{Pod: "default/db-0", Reason: rolloutv1.BlockedByPDB, PodDisruptionBudgets: []string{"default/db"}, Message: "would violate", Since: *at(2 * time.Minute)}}},
			},
		},
	}
	var out bytes.Buffer
	if err := writeStatus(&out, ro, start.Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"nodegrouprollout r1: Upgrading",
		"target launch template lt-1 version 7, strategy Default, surge 6, 3 at a time",
		"[###############...............] 5/10 nodes replaced, batch 2, 5m0s elapsed",
		"now: batch 2: 1 draining",
		"old-2  i-2       us-west-2a  2      Draining  4          4m0s",
		"blocking on old-2 for 3m0s: pod default/db-0 blocked by PodDisruptionBudget default/db: would violate",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "old-1") {
		t.Errorf("status lists a node of an earlier batch:\n%s", out.String())
	}
}

// TestBar: counts the controller never writes (a status edited through
// the status subresource) still draw a bar; they made strings.Repeat
// panic in nodeboot rollout status.
func TestBar(t *testing.T) {
	tests := []struct {
		name        string
		done, total int32
		want        string
	}{
		{name: "half", done: 5, total: 10, want: "[##..]"},
		{name: "nothing to do", done: 0, total: 0, want: "[....]"},
		{name: "more replaced than outdated", done: 12, total: 10, want: "[####]"},
		{name: "negative replaced", done: -3, total: 10, want: "[....]"},
		{name: "negative total", done: 3, total: -10, want: "[....]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := bar(tc.done, tc.total, 4); got != tc.want {
				t.Errorf("bar(%d, %d, 4) = %q, want %q", tc.done, tc.total, got, tc.want)
			}
		})
	}
}

func TestWriteReport(t *testing.T) {
	r := plan.Report{
		Group: "workers", Target: "launch template lt-1 version 7", Strategy: rolloutv1.StrategyDefault, Order: rolloutv1.OrderRandom,
		Instances: 2, Outdated: 2, Batches: 2, MaxUnavailable: 1, Surge: 2, Estimate: 20 * time.Minute,
		DrainTimeout: 15 * time.Minute, PostDrainWait: time.Minute, AssumedNodeReady: 2 * time.Minute, AssumedPodReady: 30 * time.Second,
		Nodes: []plan.NodeReport{
			{Name: "n1", InstanceID: "i-1", Zone: "a", Version: "6", Pods: 3, Drain: 15 * time.Minute,
				Findings: []plan.Finding{{Pod: "default/db-0", Kind: plan.FindingPDBNeverAllows, Blocks: true, Detail: "default/db allows 0 disruptions"}}},
			{Name: "n2", InstanceID: "i-2", Zone: "b", Version: "6", Pods: 1, Drain: 30 * time.Second},
		},
	}
	var out bytes.Buffer
	if err := writeReport(&out, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"strategy:  Default: surge 2 nodes, then 2 batches of up to 1 nodes, order Random",
		"estimate:  20m0s",
		"n1    i-1       a     6        3     15m0s  yes",
		"BLOCK default/db-0: PDBNeverAllows: default/db allows 0 disruptions",
		"1 of 2 nodes have pods that will block their drain",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

// deployDir holds the controller's manifests.
const deployDir = "../../../../deploy/rollout"

func readManifest(t *testing.T, name string, into any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(deployDir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func TestManifests(t *testing.T) {
	var kust struct {
		APIVersion string   `json:"apiVersion"`
		Kind       string   `json:"kind"`
		Namespace  string   `json:"namespace"`
		Resources  []string `json:"resources"`
		Images     []any    `json:"images"`
	}
	readManifest(t, "kustomization.yaml", &kust)
	files, _ := filepath.Glob(filepath.Join(deployDir, "*.yaml"))
	for _, f := range files {
		if base := filepath.Base(f); base != "kustomization.yaml" && !slices.Contains(kust.Resources, base) {
			t.Errorf("kustomization does not list %s", base)
		}
	}
	var sa corev1.ServiceAccount
	var crb rbacv1.ClusterRoleBinding
	var role rbacv1.Role
	var rb rbacv1.RoleBinding
	var d appsv1.Deployment
	readManifest(t, "serviceaccount.yaml", &sa)
	readManifest(t, "clusterrolebinding.yaml", &crb)
	readManifest(t, "role.yaml", &role)
	readManifest(t, "rolebinding.yaml", &rb)
	readManifest(t, "deployment.yaml", &d)
	subject := rbacv1.Subject{Kind: "ServiceAccount", Name: sa.Name, Namespace: sa.Namespace}
	if !slices.Contains(crb.Subjects, subject) || crb.RoleRef.Name != "nodeboot-rollout" || !slices.Contains(rb.Subjects, subject) || rb.RoleRef.Name != role.Name {
		t.Errorf("bindings %+v %+v do not bind %+v", crb, rb, subject)
	}
	if kust.Namespace != managerkit.DefaultLeaderElectionNamespace || role.Namespace != kust.Namespace || sa.Namespace != kust.Namespace {
		t.Errorf("namespaces: kustomization %q role %q service account %q", kust.Namespace, role.Namespace, sa.Namespace)
	}
	pod := d.Spec.Template.Spec
	if pod.ServiceAccountName != sa.Name || pod.SecurityContext == nil || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot {
		t.Errorf("pod spec %+v", pod)
	}
	c := pod.Containers[0]
	if len(c.Args) == 0 || c.Args[0] != "controller" {
		t.Fatalf("args %q, want the controller command", c.Args)
	}
	args := make([]string, len(c.Args)-1)
	for i, a := range c.Args[1:] {
		args[i] = strings.ReplaceAll(a, "$(POD_NAMESPACE)", sa.Namespace)
	}
	opts, err := ParseControllerFlags(args, Env{Stdout: &bytes.Buffer{}})
	if err != nil {
		t.Fatalf("container args %q do not parse: %v", c.Args, err)
	}
	if mo := opts.Manager; !mo.LeaderElect || mo.LeaderElectionNamespace != role.Namespace {
		t.Errorf("leader election %v in %q, want on in %q", mo.LeaderElect, mo.LeaderElectionNamespace, role.Namespace)
	}
	_, port, _ := strings.Cut(opts.Manager.HealthProbeBindAddress, ":")
	if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" || c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Fatalf("probes %+v %+v", c.LivenessProbe, c.ReadinessProbe)
	}
	for _, p := range c.Ports {
		if p.Name == c.LivenessProbe.HTTPGet.Port.String() && strconv.Itoa(int(p.ContainerPort)) != port {
			t.Errorf("probe port %s is %d, but --health-probe-bind-address is %q", p.Name, p.ContainerPort, opts.Manager.HealthProbeBindAddress)
		}
	}
}

// TestDurationFlagsAnswerAsTheAPIServer: a duration flag is checked as
// written by the CRD's rule, so the command line refuses exactly the
// durations the API server refuses, with its message, including those
// time.ParseDuration takes ("+1s", ".5s", five units, the Greek mu).
func TestDurationFlagsAnswerAsTheAPIServer(t *testing.T) {
	const rule = `: Invalid value: %q: must be a duration from 0 to 168h, such as 90s, 15m or 1h30m`
	tests := []struct {
		name, flag, value string
		want              time.Duration // when accepted
		field             string        // spec.timeouts.FIELD when refused
	}{
		{name: "letters", flag: "--drain-timeout", value: "abc", field: "drain"},
		{name: "days", flag: "--drain-timeout", value: "1d", field: "drain"},
		{name: "empty", flag: "--drain-timeout", value: "", field: "drain"},
		{name: "negative", flag: "--drain-timeout", value: "-1s", field: "drain"},
		{name: "over 168h", flag: "--drain-timeout", value: "169h", field: "drain"},
		{name: "beyond int64 nanoseconds", flag: "--drain-timeout", value: "2562048h", field: "drain"},
		{name: "leading plus", flag: "--post-drain-wait", value: "+1s", field: "postDrainWait"},
		{name: "no integer part", flag: "--post-drain-wait", value: ".5s", field: "postDrainWait"},
		{name: "no fraction digits", flag: "--node-creation-timeout", value: "1.s", field: "nodeCreation"},
		{name: "five units", flag: "--node-creation-timeout", value: "1h1m1s1ms1us", field: "nodeCreation"},
		{name: "Greek mu", flag: "--eviction-retry-interval", value: "1\u03bcs", field: "evictionRetryInterval"},
		{name: "fraction of an hour", flag: "--drain-timeout", value: "1.5h", want: 90 * time.Minute},
		{name: "bare zero", flag: "--drain-timeout", value: "0", want: 0},
		{name: "hours and minutes", flag: "--drain-timeout", value: "1h30m", want: 90 * time.Minute},
		{name: "the maximum", flag: "--drain-timeout", value: "168h", want: 168 * time.Hour},
		{name: "micro sign", flag: "--drain-timeout", value: "1\u00b5s", want: time.Microsecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Main(context.Background(), []string{"start", "r1", "--group", "g", tc.flag, tc.value, "--dry-run"}, Env{Stdout: &out, Stderr: &errOut})
			if tc.field != "" {
				want := "spec.timeouts." + tc.field + fmt.Sprintf(rule, tc.value)
				if code != ExitUsage || !strings.Contains(errOut.String(), want) {
					t.Errorf("code %d stderr %q; want %d and %q", code, errOut.String(), ExitUsage, want)
				}
				return
			}
			var ro rolloutv1.NodeGroupRollout
			if code != ExitOK {
				t.Fatalf("code %d: %s", code, errOut.String())
			}
			if err := yaml.UnmarshalStrict(out.Bytes(), &ro); err != nil {
				t.Fatal(err)
			}
			if got := plan.SettingsOf(ro.Spec).DrainTimeout; got != tc.want {
				t.Errorf("drain timeout %v, want %v", got, tc.want)
			}
		})
	}
}
