package agent

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/nodeboot/nodeboot/internal/node/service"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

func readCase(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/cases", name, "user-data"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func initOpts() InitOptions {
	return InitOptions{Sources: []string{"imds://user-data"}, SkipRun: true, Scope: AllDaemons}
}

func TestAWSCallsOnlyWhenNeeded(t *testing.T) {
	for _, tc := range []struct {
		name  string
		case_ string
		want  map[string]int
	}{
		{"complete config needs only the node name", "minimal", map[string]int{"DescribeInstances": 1}},
		{"instance ID node name needs no API call", "instance-id-node-name", map[string]int{}},
		{"cluster name only discovers the cluster", "discovery-cluster-name-only", map[string]int{"DescribeInstances": 1, "DescribeCluster": 1}},
		{"unknown instance type asks EC2 for its limits", "unknown-instance-type", map[string]int{"DescribeInstances": 1, "DescribeInstanceTypes": 1}},
		{"user maxPods needs no limits", "user-maxpods-and-dns", map[string]int{"DescribeInstances": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			a, _, cloud := newTestAgent(t, root, readCase(t, tc.case_), loadCase(t, filepath.Join("testdata/cases", tc.case_)))
			if err := a.Init(context.Background(), initOpts()); err != nil {
				t.Fatal(err)
			}
			if len(cloud.calls) != len(tc.want) {
				t.Fatalf("calls = %v, want %v", cloud.calls, tc.want)
			}
			for k, v := range tc.want {
				if cloud.calls[k] != v {
					t.Fatalf("calls = %v, want %v", cloud.calls, tc.want)
				}
			}
		})
	}
}

func TestBadInputWritesNothingAndCallsNoAPI(t *testing.T) {
	bad := []byte("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: x\n    apiServerEndpoint: ftp://nope\n    cidr: 10.100.0.0/99\n    nmae: typo\n")
	root := t.TempDir()
	a, _, cloud := newTestAgent(t, root, bad, caseSpec{InstanceType: "m5.large", CPUs: "0-1", MemKB: 8000000, KubeletVersion: "v1.34.4", ContainerdVersion: "1.7.27"})
	a.Strict = true // the unknown field is an error too (only a warning at a non-strict boot)
	err := a.Init(context.Background(), initOpts())
	if !errors.Is(err, diag.ErrInvalidConfig) {
		t.Fatalf("err = %v, want ErrInvalidConfig", err)
	}
	for _, want := range []string{"spec.cluster.apiServerEndpoint", "spec.cluster.cidr", "spec.cluster.nmae"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %s:\n%v", want, err)
		}
	}
	if len(cloud.calls) != 0 {
		t.Fatalf("AWS API called on invalid input: %v", cloud.calls)
	}
	// Nothing but the note that tells the bootstrap.sh shim not to start
	// the node (see TestRejectedConfigPhaseIsRecorded).
	if files := writtenFiles(t, root); len(files) != 1 || files[strings.TrimPrefix(RejectionPath, "/")] == nil {
		t.Fatalf("files written on invalid input: %v", names(files))
	}
}

func TestInitIsIdempotent(t *testing.T) {
	root := t.TempDir()
	a, _, _ := newTestAgent(t, root, readCase(t, "mime-two-parts-and-shell"), loadCase(t, "testdata/cases/minimal"))
	if err := a.Init(context.Background(), initOpts()); err != nil {
		t.Fatal(err)
	}
	first := writtenFiles(t, root)
	stat1, _ := os.Stat(filepath.Join(root, "etc/kubernetes/kubelet/config.json"))
	if err := a.Init(context.Background(), initOpts()); err != nil {
		t.Fatal(err)
	}
	stat2, _ := os.Stat(filepath.Join(root, "etc/kubernetes/kubelet/config.json"))
	if names(first) != names(writtenFiles(t, root)) || !stat1.ModTime().Equal(stat2.ModTime()) {
		t.Fatal("second run changed files")
	}
	st, _ := os.Stat(filepath.Join(root, "var/lib/kubelet/kubeconfig"))
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("kubeconfig mode %v", st.Mode().Perm())
	}
}

func TestCacheSkipsDiscoveryOnSecondPhase(t *testing.T) {
	root := t.TempDir()
	a, md, cloud := newTestAgent(t, root, readCase(t, "discovery-cluster-name-only"), loadCase(t, "testdata/cases/minimal"))
	o := initOpts()
	o.CachePath = "/run/eks/nodeadm/config.json"
	if err := a.Init(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	before := cloud.calls["DescribeCluster"] + cloud.calls["DescribeInstances"]
	imdsBefore := md.calls["instance"]
	o.SkipConfig = true
	if err := a.Init(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if after := cloud.calls["DescribeCluster"] + cloud.calls["DescribeInstances"]; after != before {
		t.Fatalf("second phase called AWS again: %v", cloud.calls)
	}
	if md.calls["instance"] != imdsBefore {
		t.Fatalf("second phase looked up instance metadata again: %v", md.calls)
	}
	st, err := os.Stat(filepath.Join(root, "run/eks/nodeadm/config.json"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("cache: %v %v", st, err)
	}
}

// TestCacheLayoutAsNodeadms: the cache holds the user's spec at .spec and
// what was discovered at .status, where nodeadm's tooling reads them (its
// e2e compares `jq .spec`), and the discovered cluster in .resolvedSpec.
// A cache in another layout (an older nodeboot's, nodeadm's) is ignored
// with a warning: the next phase enriches again.
func TestCacheLayoutAsNodeadms(t *testing.T) {
	root := t.TempDir()
	a, _, cloud := newTestAgent(t, root, readCase(t, "discovery-cluster-name-only"), loadCase(t, "testdata/cases/minimal"))
	o := initOpts()
	o.CachePath = "/run/eks/nodeadm/config.json"
	if err := a.Init(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "run/eks/nodeadm/config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Spec struct {
			Cluster map[string]any `json:"cluster"`
		} `json:"spec"`
		Status struct {
			Instance map[string]any `json:"instance"`
		} `json:"status"`
		ResolvedSpec struct {
			Cluster map[string]any `json:"cluster"`
		} `json:"resolvedSpec"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Spec.Cluster["name"] == nil || doc.Spec.Cluster["apiServerEndpoint"] != nil {
		t.Errorf(".spec.cluster = %v, want the user's (name only)", doc.Spec.Cluster)
	}
	if doc.ResolvedSpec.Cluster["apiServerEndpoint"] == nil || doc.Status.Instance["id"] == nil {
		t.Errorf(".resolvedSpec.cluster = %v, .status.instance = %v, want the discovered values", doc.ResolvedSpec.Cluster, doc.Status.Instance)
	}
	old := `{"userSpec":{"cluster":{"name":"c"}},"config":{"spec":{"cluster":{"name":"c"}}}}`
	if err := os.WriteFile(filepath.Join(root, "run/eks/nodeadm/config.json"), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	before := cloud.calls["DescribeCluster"]
	o.SkipConfig = true
	if err := a.Init(context.Background(), o); err != nil {
		t.Fatalf("init with a cache in the old layout: %v", err)
	}
	if cloud.calls["DescribeCluster"] == before {
		t.Error("a cache in the old layout was used instead of discovering again")
	}
}

func TestRemovedUserConfigRemovesDropIn(t *testing.T) {
	root := t.TempDir()
	a, md, _ := newTestAgent(t, root, readCase(t, "user-maxpods-and-dns"), loadCase(t, "testdata/cases/minimal"))
	if err := a.Init(context.Background(), initOpts()); err != nil {
		t.Fatal(err)
	}
	dropIn := filepath.Join(root, "etc/kubernetes/kubelet/config.json.d/40-nodeadm.conf")
	if _, err := os.Stat(dropIn); err != nil {
		t.Fatal(err)
	}
	md.userData = readCase(t, "minimal")
	if err := a.Init(context.Background(), initOpts()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dropIn); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stale drop-in kept: %v", err)
	}
}

func TestRunPhaseRestartsInOrder(t *testing.T) {
	root := t.TempDir()
	a, _, _ := newTestAgent(t, root, readCase(t, "containerd-user-toml-env-dns"), loadCase(t, "testdata/cases/minimal"))
	rec := &recorder{}
	a.Services = rec.manager
	o := initOpts()
	o.SkipRun = false
	if err := a.Init(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	want := "daemon-reload,restart systemd-resolved.service,restart containerd.service,restart kubelet.service"
	if got := strings.Join(rec.r.Calls, ","); got != want {
		t.Fatalf("calls = %s\nwant  %s", got, want)
	}
}

// TestRunPhaseWithNothingToStartNeedsNoServiceManager: init --daemon ""
// (a harness that runs the daemons itself) never connects to systemd when
// no local disks are to be set up, so it works where there is none.
func TestRunPhaseWithNothingToStartNeedsNoServiceManager(t *testing.T) {
	root := t.TempDir()
	a, _, _ := newTestAgent(t, root, readCase(t, "containerd-user-toml-env-dns"), loadCase(t, "testdata/cases/minimal"))
	a.Services = func(context.Context) (service.Manager, error) {
		return nil, errors.New("no system bus")
	}
	o := initOpts()
	o.SkipConfig, o.SkipRun, o.Scope = true, false, Scope{}
	if err := a.Init(context.Background(), o); err != nil {
		t.Fatalf("Init with no daemon in scope = %v, want no service manager needed", err)
	}
}

// TestTwoPhaseBootLoadsDropInsInTheConfigPhase runs the packaged flow:
// nodeboot-config (--skip run) then nodeboot-run (--skip config) with the
// cache. systemd must reload the drop-ins when they are written, not in a
// run phase that finds nothing changed.
func TestTwoPhaseBootLoadsDropInsInTheConfigPhase(t *testing.T) {
	root := t.TempDir()
	a, _, _ := newTestAgent(t, root, readCase(t, "containerd-user-toml-env-dns"), loadCase(t, "testdata/cases/minimal"))
	rec := &recorder{}
	a.Services = rec.manager
	o := initOpts()
	o.CachePath = "/run/eks/nodeadm/config.json"
	if err := a.Init(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rec.r.Calls, ","); got != "daemon-reload,restart systemd-resolved.service" {
		t.Fatalf("config phase calls = %s", got)
	}
	rec.r.Calls = nil
	o.SkipConfig, o.SkipRun = true, false
	if err := a.Init(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rec.r.Calls, ","); got != "restart containerd.service,restart kubelet.service" {
		t.Fatalf("run phase calls = %s", got)
	}
}

func TestRemovedSettingsRemoveTheirFiles(t *testing.T) {
	root := t.TempDir()
	a, md, _ := newTestAgent(t, root, readCase(t, "containerd-user-toml-env-dns"), loadCase(t, "testdata/cases/minimal"))
	if err := a.Init(context.Background(), initOpts()); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"etc/systemd/system.conf.d/environment.conf", "run/systemd/resolved.conf.d/40-eks.conf"} {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Fatalf("%s not written: %v", p, err)
		}
	}
	md.userData = readCase(t, "minimal")
	if err := a.Init(context.Background(), initOpts()); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"etc/systemd/system.conf.d/environment.conf", "run/systemd/resolved.conf.d/40-eks.conf"} {
		if _, err := os.Stat(filepath.Join(root, p)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s kept after its setting was removed: %v", p, err)
		}
	}
}

// TestRenderErrorNamesTheSource: what only rendering finds (a version 3
// containerd.config for containerd 1.x, which nodeadm refuses too) names
// the config source the user fixes (the oracle's containerd-v3 case).
func TestRenderErrorNamesTheSource(t *testing.T) {
	root := t.TempDir()
	userData := append(readCase(t, "minimal"), "  containerd:\n    config: |\n      version = 3\n"...)
	a, _, _ := newTestAgent(t, root, userData, loadCase(t, "testdata/cases/minimal"))
	err := a.Init(context.Background(), initOpts())
	if err == nil || !strings.Contains(err.Error(), "imds://user-data") || !strings.Contains(err.Error(), "containerd.config") {
		t.Fatalf("err = %v, want one naming imds://user-data and containerd.config", err)
	}
}
