//go:build oracle

package oracle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/testing/gobuild"
	"github.com/nodeboot/nodeboot/internal/testing/isoroot"
	"github.com/nodeboot/nodeboot/internal/testing/nodeadmtool"
	"github.com/nodeboot/nodeboot/internal/testing/nodeview"
	"github.com/nodeboot/nodeboot/internal/testing/systemdbus"
)

func TestMain(m *testing.M) { isoroot.Main(removingBuilt{m}) }

// removingBuilt runs the tests, then removes the nodeboot they built (a
// directory in the system's temporary directory, 37 MB a run).
type removingBuilt struct{ m *testing.M }

// Run runs the tests and removes the built binaries.
func (r removingBuilt) Run() int {
	code := r.m.Run()
	if !builtOnce.Load() {
		return code
	}
	if dir, err := builtNodeboot(); err == nil {
		_ = os.RemoveAll(dir)
	}
	return code
}

// runBound only catches a hang: every agent run ends by itself long before
// (nodeboot's --timeout is 5 min; nodeadm's longest wait in these cases is
// its IMDS retries).
const runBound = 15 * time.Minute

// agent is one of the two agents under comparison, as installed on a node.
type agent struct {
	name string
	// bins maps a path inside the root to the host binary installed there.
	bins map[string]string
	// argv turns a run.sh command line (nodeadm …, nodeadm-internal …)
	// into this agent's.
	argv func(args []string) []string
	// private are the node paths (path.Match patterns, or prefix/**)
	// holding the agent's own state rather than the node's.
	private []string
}

var (
	toolOnce sync.Once
	tool     nodeadmtool.Tool
)

// nodeadmAgent is the real nodeadm.
func nodeadmAgent(t testing.TB) *agent {
	toolOnce.Do(func() { tool = nodeadmtool.Find(t) })
	if tool.Nodeadm == "" {
		t.Skip("nodeadm not found")
	}
	return &agent{
		name: "nodeadm",
		bins: map[string]string{"/usr/local/bin/nodeadm": tool.Nodeadm, "/usr/local/bin/nodeadm-internal": tool.Internal},
		argv: func(args []string) []string {
			return append([]string{"/usr/local/bin/" + args[0]}, args[1:]...)
		},
		private: []string{"/run/eks/nodeadm/config.json", "/run/nodeadm/**", "/etc/eks/nodeadm/udev-net-manager/**"},
	}
}

// builtOnce is set once builtNodeboot has been asked for: the cleanup
// must not build it only to remove it.
var builtOnce atomic.Bool

// builtNodeboot is nodeboot built as `make build` builds it (-tags
// celexec, with its nodeboot-cel helper), once per test binary.
var builtNodeboot = sync.OnceValues(func() (string, error) {
	builtOnce.Store(true)
	dir, err := os.MkdirTemp("", "nodeboot-oracle-")
	if err != nil {
		return "", err
	}
	ctx := context.Background()
	for _, cmd := range []string{"nodeboot", "nodeboot-cel"} {
		if err := gobuild.Build(ctx, ".", filepath.Join(dir, cmd), "../../cmd/"+cmd, "celexec"); err != nil {
			return "", err
		}
	}
	return dir, nil
})

// nodebootAgent is nodeboot, run where the AMI runs nodeadm.
func nodebootAgent(t *testing.T) *agent {
	dir, err := builtNodeboot()
	if err != nil {
		t.Fatal(err)
	}
	return &agent{
		name: "nodeboot",
		bins: map[string]string{"/usr/local/bin/nodeboot": filepath.Join(dir, "nodeboot"), "/usr/local/bin/nodeboot-cel": filepath.Join(dir, "nodeboot-cel")},
		argv: func(args []string) []string {
			switch args[0] {
			case "nodeadm":
				argv := append([]string{"/usr/local/bin/nodeboot"}, args[1:]...)
				if startsKubelet(args) {
					// nodeboot's run phase then waits for the Node to
					// register; the oracle has no API server (the e2e
					// suite tests the wait): table entry registration-wait.
					argv = append(argv, "--registration-timeout=0")
				}
				return argv
			case "nodeadm-internal":
				return append([]string{"/usr/local/bin/nodeboot", "internal"}, args[1:]...)
			}
			return args
		},
		private: []string{"/run/eks/nodeadm/config.json", "/var/lib/nodeboot/**", "/run/nodeboot/**", "/run/nodeadm/**", "/etc/eks/nodeadm/udev-net-manager/**"},
	}
}

// node is one agent's node in one case.
type node struct {
	agent    *agent
	cloud    *cloud
	root     *isoroot.Root
	bus      *systemdbus.Bus
	env      []string
	baseline map[string]string
}

// caseDir is where a case's files are copied inside a node (run.sh runs in
// /test-case).
const caseDir = "/test-case"

// newNode makes a node for a, with the files of the case directory src (if
// any) under /test-case, the AL2023 AMI's fixed files, and the bus.
func newNode(t *testing.T, a *agent, c *cloud, src string) *node {
	t.Helper()
	r := isoroot.New(t, isoroot.Options{CPUs: cpuTopology(t), Links: links})
	for dst, bin := range a.bins {
		if err := r.Install(bin, dst); err != nil {
			t.Fatal(err)
		}
	}
	if src != "" {
		if err := os.CopyFS(r.Path(caseDir), os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
	}
	for p, data := range amiFiles {
		if err := r.WriteFile(p, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	n := &node{agent: a, cloud: c, root: r, baseline: map[string]string{}}
	n.bus = systemdbus.Start(t, r.Path("run/dbus/system_bus_socket"))
	n.env = []string{
		"PATH=/mock/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOME=/root",
		"DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/dbus/system_bus_socket",
		// as nodeadm's e2e helpers.sh exports them:
		"AWS_ACCESS_KEY_ID=testing", "AWS_SECRET_ACCESS_KEY=testing", "AWS_SECURITY_TOKEN=testing", "AWS_SESSION_TOKEN=testing",
		"AWS_REGION=us-east-1",
		"AWS_ENDPOINT_URL=" + c.ec2,
		// By name, as helpers.sh has it: nodeadm's IMDS client sends
		// every host but localhost through http.ProxyFromEnvironment,
		// which reads the proxy variables once, at its first use, before
		// the user data's environment.default sets them.
		"AWS_EC2_METADATA_SERVICE_ENDPOINT=" + strings.Replace(c.imds, "127.0.0.1", "localhost", 1),
	}
	for _, p := range []string{"/etc/hosts"} {
		b, _ := os.ReadFile(r.Path(p))
		n.baseline[p] = string(b)
	}
	return n
}

// amiFiles are what the image nodeadm's e2e cases run in holds for the
// agent (its Dockerfile): the ECR credential provider (only its presence
// is checked), the kubelet's and containerd's units.
var amiFiles = map[string]string{
	"/etc/eks/image-credential-provider/ecr-credential-provider": "",
	"/usr/lib/systemd/system/kubelet.service":                    "[Service]\nExecStart=/usr/bin/kubelet\n",
	"/usr/lib/systemd/system/containerd.service":                 "[Service]\nExecStart=/usr/bin/containerd\n",
}

// links are the simulated instance's interfaces: eth0 is the primary ENI
// (the MAC AEMM serves), eth1 a secondary one.
var links = map[string]string{"eth0": "0e:49:61:0f:c3:11", "eth1": "0e:49:61:0f:c3:12", "lo": "00:00:00:00:00:00"}

// cpuTopology is the simulated instance's CPUs: nodeadm's e2e image's
// (two), from its module.
func cpuTopology(t *testing.T) string {
	if tool.ModuleDir == "" {
		return ""
	}
	return tool.InfraFile("mock/cpu")
}

// result is one command's outcome.
type result struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("exit %d after %s\n--- stdout\n%s--- stderr\n%s", r.code, r.took.Round(time.Millisecond), tail(r.stdout), tail(r.stderr))
}

func tail(s string) string {
	if len(s) > 6000 {
		return "…" + s[len(s)-6000:]
	}
	return s
}

// run runs a run.sh command line (its first word nodeadm or
// nodeadm-internal, or any program of the node) in /test-case.
func (n *node) run(ctx context.Context, extraEnv []string, args ...string) result {
	ctx, cancel := context.WithTimeout(ctx, runBound)
	defer cancel()
	argv := n.agent.argv(args)
	cmd := n.root.Command(ctx, append(append([]string(nil), n.env...), extraEnv...), n.cwd(), argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := result{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	default:
		res.code, res.stderr = -1, res.stderr+"\n(harness) "+err.Error()
	}
	return res
}

func (n *node) cwd() string {
	if _, err := os.Stat(n.root.Path(caseDir)); err == nil {
		return caseDir
	}
	return "/"
}

// view reads the node as its daemons would.
func (n *node) view(t *testing.T) nodeview.View {
	t.Helper()
	ignore := append([]string{caseDir + "/**", "/etc/eks/image-credential-provider/ecr-credential-provider", "/usr/**", "/mock/**"}, n.agent.private...)
	v, err := nodeview.Read(n.root.Dir, nodeview.Options{Ignore: ignore, Baseline: n.baseline})
	if err != nil {
		t.Fatalf("%s node: %v", n.agent.name, err)
	}
	return v
}

// write writes a file on the node (a step of a case's run.sh).
func (n *node) write(p, data string, mode os.FileMode) error {
	return n.root.WriteFile(p, data, mode)
}

// remove removes node files matching a glob.
func (n *node) remove(glob string) error {
	matches, err := filepath.Glob(n.root.Path(glob))
	if err != nil {
		return err
	}
	for _, m := range matches {
		if err := os.RemoveAll(m); err != nil {
			return err
		}
	}
	return nil
}

// mockKubelet installs the kubelet stand-in nodeadm's e2e cases use
// (helpers.sh mock::kubelet): a script answering --version. Both agents
// read the version by running it, as on an AMI without
// /etc/eks/kubelet-version.txt.
func (n *node) mockKubelet(version string) error {
	return n.write("/usr/bin/kubelet", "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then\n  echo \"Kubernetes v"+version+"\"\nelse\n  sleep 3600\nfi\n", 0o755)
}

// startsKubelet reports whether a nodeadm command line is an init whose
// run phase starts the kubelet.
func startsKubelet(args []string) bool {
	if len(args) < 2 || args[1] != "init" {
		return false
	}
	for i, a := range args {
		switch {
		case (a == "--skip" || a == "-s") && i+1 < len(args) && args[i+1] == "run", a == "--skip=run":
			return false
		case a == "--daemon=" || a == "-d=":
			return false
		}
	}
	return true
}
