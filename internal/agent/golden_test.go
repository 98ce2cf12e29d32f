package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/hub"
)

var update = flag.Bool("update", false, "rewrite golden files")

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
	b, err := os.ReadFile("testdata/ca.pem")
	if err != nil {
		t.Fatal(err)
	}
	return b
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
	a := &Agent{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Root: root, Metadata: md, Cloud: cloud.factory()}
	a.Probe.Root = root
	return a, md, cloud
}

// writtenFiles lists every file under root the agent wrote (host inputs excluded).
func writtenFiles(t *testing.T, root string) map[string][]byte {
	t.Helper()
	inputs := []string{"sys/", "proc/", "etc/eks/kubelet-version.txt", "etc/eks/containerd-version.txt", "usr/"}
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for _, in := range inputs {
			if strings.HasPrefix(rel, in) {
				return nil
			}
		}
		b, err := os.ReadFile(p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGoldenInit(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/cases/*")
	if len(dirs) < 12 {
		t.Fatalf("want at least 12 golden cases, found %d", len(dirs))
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			userData, err := os.ReadFile(filepath.Join(dir, "user-data"))
			if err != nil {
				t.Fatal(err)
			}
			root := t.TempDir()
			a, _, _ := newTestAgent(t, root, userData, loadCase(t, dir))
			err = a.Init(context.Background(), InitOptions{Sources: []string{"imds://user-data"}, SkipRun: true, Scope: AllDaemons})
			if err != nil {
				t.Fatalf("init: %v", err)
			}
			compareTree(t, filepath.Join(dir, "expected"), writtenFiles(t, root))
		})
	}
}

func compareTree(t *testing.T, expectedDir string, got map[string][]byte) {
	t.Helper()
	if *update {
		_ = os.RemoveAll(expectedDir)
		for rel, data := range got {
			p := filepath.Join(expectedDir, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	want := map[string][]byte{}
	_ = filepath.WalkDir(expectedDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(expectedDir, p)
			want[rel], _ = os.ReadFile(p)
		}
		return nil
	})
	if names(want) != names(got) {
		t.Fatalf("files differ\nwant: %s\ngot:  %s", names(want), names(got))
	}
	for rel, w := range want {
		if !bytes.Equal(w, got[rel]) {
			t.Errorf("%s differs (run with -update to accept)\n--- want\n%s\n--- got\n%s", rel, w, got[rel])
		}
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
