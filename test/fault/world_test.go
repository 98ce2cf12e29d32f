package fault

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/inroot"
	"github.com/nodeboot/nodeboot/internal/node/agent"
	"github.com/nodeboot/nodeboot/internal/testing/aemmtest"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
	"github.com/nodeboot/nodeboot/internal/testing/nodetest"
)

const (
	casesDir  = "../../internal/node/agent/testdata/cases/"
	cachePath = "/run/eks/nodeadm/config.json"
	// source is where the user data of a run is put, under the root.
	source = "/src/user-data"
	// nodeName is what the EC2 stub answers for the AEMM instance.
	nodeName = "ip-10-0-0-5.us-west-2.compute.internal"
)

// world is what the scenarios share: the real IMDS (AWS's metadata mock),
// two configurations (A: a NodeConfig with a kubelet drop-in and a shell
// part; B: a minimal NodeConfig, so going from A to B replaces two files and
// removes the drop-in) and the complete file sets each produces.
type world struct {
	imds       string
	a, b       []byte
	setA, setB files
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{imds: aemmtest.Start(t, aemmtest.Config{}), a: readCase(t, "mime-two-parts-and-shell"), b: readCase(t, "minimal")}
	ec2 := w.ec2(t)
	for _, c := range []struct {
		data []byte
		set  *files
	}{{w.a, &w.setA}, {w.b, &w.setB}} {
		root := w.root(t, c.data)
		run(t, w.env(t, ec2.URL), 0, initArgs(root)...)
		*c.set = snapshot(t, root)
	}
	if len(w.setA) < 7 || len(w.setB) < 6 {
		t.Fatalf("reference sets too small: A %v, B %v", w.setA.names(), w.setB.names())
	}
	return w
}

func readCase(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(casesDir + name + "/user-data")
	if err != nil {
		t.Fatal(err)
	}
	countInput(name)
	return b
}

// ec2 starts an EC2 API stub that knows the AEMM instance.
func (w *world) ec2(t *testing.T) *awstest.EC2 {
	t.Helper()
	s := awstest.NewEC2(t)
	s.AddInstance(awstest.Instance{ID: aemmtest.DefaultInstanceID, InstanceType: aemmtest.DefaultInstanceType, PrivateDNSName: nodeName})
	return s
}

// env is the environment of a run: no AWS setting of this machine, the
// world's IMDS, the EC2 endpoint given, and extra variables.
func (w *world) env(t *testing.T, ec2URL string, extra ...string) []string {
	t.Helper()
	env := append(awstest.IsolatedEnviron(t), "AWS_EC2_METADATA_SERVICE_ENDPOINT="+w.imds, "AWS_ENDPOINT_URL_EC2="+ec2URL)
	return append(env, extra...)
}

// root returns a new node root (host files of an AMI) whose source holds
// userData.
func (w *world) root(t *testing.T, userData []byte) string {
	t.Helper()
	root := t.TempDir()
	nodetest.FakeMachine(t, root)
	setSource(t, root, userData)
	return root
}

// rootWithA returns a root on which configuration A was applied.
func (w *world) rootWithA(t *testing.T) string {
	t.Helper()
	root := w.root(t, w.a)
	run(t, w.env(t, w.ec2(t).URL), 0, initArgs(root)...)
	w.setA.assert(t, "after applying A", root, false)
	return root
}

func setSource(t *testing.T, root string, data []byte) {
	t.Helper()
	p := filepath.Join(root, source)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// initArgs is the config phase as nodeboot-config.service runs it, on root.
func initArgs(root string, extra ...string) []string {
	return append([]string{"init", "--skip", "run", "--root", root, "-c", "file://" + source, "--config-cache", cachePath}, extra...)
}

// files maps paths under a root to their content ("-> target" for a link):
// everything the agent wrote, without the host's files and the sources.
type files map[string]string

// ignored are the paths, under a root, that the agent only reads.
func ignored(rel string) bool {
	if _, host := nodetest.HostFiles[rel]; host {
		return true
	}
	return strings.HasPrefix(rel, "src/") || strings.HasPrefix(rel, "sys/") || strings.HasPrefix(rel, "proc/")
}

// snapshot reads the files under root; temporary files fail the test.
func snapshot(t *testing.T, root string) files {
	t.Helper()
	out := files{}
	for rel, v := range nodetest.Tree(t, root, ignored) {
		if strings.HasSuffix(rel, "/") {
			continue
		}
		if inroot.IsTemp(filepath.Base(rel)) {
			t.Errorf("temporary file left: %s", rel)
		}
		out[rel] = v
	}
	return out
}

func (f files) names() []string {
	var out []string
	for k := range f {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// rejection is the note a failed config phase leaves, relative to a root.
var rejection = strings.TrimPrefix(agent.RejectionPath, "/")

// assert checks that root holds exactly the files f, no temporary file, and
// the rejection note when (and only when) rejected.
func (f files) assert(t *testing.T, when, root string, rejected bool) {
	t.Helper()
	got := snapshot(t, root)
	if _, noted := got[rejection]; noted != rejected {
		t.Errorf("%s: rejection note present = %v, want %v", when, noted, rejected)
	}
	delete(got, rejection)
	var diffs []string
	for k, v := range f {
		if g, ok := got[k]; !ok {
			diffs = append(diffs, "missing "+k)
		} else if g != v {
			diffs = append(diffs, "changed "+k)
		}
	}
	for k := range got {
		if _, ok := f[k]; !ok {
			diffs = append(diffs, "unexpected "+k)
		}
	}
	if len(diffs) > 0 {
		slices.Sort(diffs)
		t.Errorf("%s: the root holds neither complete set it should:\n  %s", when, strings.Join(diffs, "\n  "))
	}
}

// says fails the test unless the message holds every part of want.
func says(t *testing.T, o outcome, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(o.stderr, w) {
			t.Errorf("message lacks %q:\n%s", w, o.stderr)
		}
	}
}
