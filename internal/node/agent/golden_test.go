package agent

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/maxpods/celexpr"
	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

// caseSpec overrides the default machine of a golden case.
type caseSpec struct {
	InstanceType      string `json:"instanceType"`
	CPUs              string `json:"cpus"`
	MemKB             int    `json:"memKB"`
	KubeletVersion    string `json:"kubeletVersion"`
	ContainerdVersion string `json:"containerdVersion"`
	NvidiaGPU         bool   `json:"nvidiaGPU"`
	NvidiaRuntime     bool   `json:"nvidiaRuntime"`
}

func loadCase(t *testing.T, dir string) caseSpec {
	t.Helper()
	c := caseSpec{InstanceType: "m5.large", CPUs: "0-1", MemKB: 8010000, KubeletVersion: "v1.34.4", ContainerdVersion: "1.7.27"}
	b, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err == nil {
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func testCA(t *testing.T) []byte {
	t.Helper()
	return golden.Read(t, "testdata/ca.pem")
}

// newTestAgent returns an agent over a fake machine described by c.
func newTestAgent(t *testing.T, root string, userData []byte, c caseSpec) (*Agent, *fakeMetadata, *fakeCloud) {
	t.Helper()
	hostTree{cpus: c.CPUs, memKB: c.MemKB, kubeletVersion: c.KubeletVersion, containerdVersion: c.ContainerdVersion,
		nvidiaGPU: c.NvidiaGPU, nvidiaRuntime: c.NvidiaRuntime}.write(t, root)
	md := &fakeMetadata{
		userData: userData,
		instance: hub.InstanceStatus{ID: "i-0123456789abcdef0", Region: "us-west-2", Type: c.InstanceType,
			AvailabilityZone: "us-west-2a", MAC: "0e:49:61:0f:c3:11", NodeIP: "10.0.0.5"},
		ipv6s:    []string{"2600:1f14:abcd:1200::5"},
		vpcCIDRs: []string{"10.0.0.0/16"},
	}
	cloud := &fakeCloud{
		dnsName: "ip-10-0-0-5.us-west-2.compute.internal",
		cluster: ClusterInfo{Endpoint: "https://discovered.gr7.us-west-2.eks.amazonaws.com", CA: testCA(t),
			ServiceIPv4CIDR: "172.20.0.0/16", IPFamily: "ipv4"},
	}
	a := &Agent{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Expressions: celexpr.Evaluator{}, Root: root, Metadata: md, Cloud: cloud.factory(),
		LookupHost: func(context.Context, string) ([]string, error) { return []string{"10.0.0.21", "10.0.0.20"}, nil }}
	a.Probe.Root = root
	return a, md, cloud
}

// hostInputs are the path prefixes, under root, of the files hostTree writes.
var hostInputs = []string{"sys/", "proc/", "etc/eks/kubelet-version.txt", "etc/eks/containerd-version.txt", "usr/"}

// writtenFiles lists every file under root the agent wrote (host inputs excluded).
func writtenFiles(t *testing.T, root string) map[string][]byte {
	t.Helper()
	files := golden.ReadTree(t, root)
	for rel := range files {
		if slices.ContainsFunc(hostInputs, func(in string) bool { return strings.HasPrefix(rel, in) }) {
			delete(files, rel)
		}
	}
	return files
}

func TestGoldenInit(t *testing.T) {
	for _, dir := range golden.Glob(t, "testdata/cases/*", 12) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			userData := golden.Read(t, filepath.Join(dir, "user-data"))
			root := t.TempDir()
			a, _, _ := newTestAgent(t, root, userData, loadCase(t, dir))
			err := a.Init(context.Background(), InitOptions{Sources: []string{"imds://user-data"}, SkipRun: true, Scope: AllDaemons})
			if err != nil {
				t.Fatalf("init: %v", err)
			}
			golden.CompareTree(t, filepath.Join(dir, "expected"), writtenFiles(t, root))
		})
	}
}

func names(m map[string][]byte) string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	sort.Strings(s)
	return strings.Join(s, " ")
}
