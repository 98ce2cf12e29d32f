//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeboot/nodeboot/internal/node/doctor"
)

// cniConflist is where the harness, playing the CNI installer a real
// cluster runs as a DaemonSet, writes the pod network config.
const cniConflist = "/etc/cni/net.d/10-nodeboot-e2e.conflist"

// nodeAgent writes a node's configuration files under a root directory.
type nodeAgent interface {
	// name says what renders the files, for logs and the report.
	name() string
	// render writes the files under root.
	render(ctx context.Context, root string) (agentResult, error)
}

// agentResult is one agent run: its wall time and what it printed.
type agentResult struct {
	took   time.Duration
	output string
	// eks are the EKS requests the run made, as the recording proxy saw
	// them, and describeClusterCalls the DescribeCluster calls the EKS stub
	// counted (when the agent has an EKS API).
	eks                  []eksRequest
	describeClusterCalls int
}

// node is one joined (or joining) worker on this machine: the files the
// agent rendered and the containerd and kubelet started from them.
type node struct {
	name     string
	dir      string // harness scratch for this node (logs, dry run)
	procs    *processGroup
	rendered rendered
	// written are the node paths the agent writes, learnt from its dry run
	// under dryRoot.
	written []string
	dryRoot string
	tl      *timeline
	// dryRunResult is the dry run's agent run.
	dryRunResult agentResult
	// agentStart is when the real agent run started; agentRun is that run.
	agentStart time.Time
	agentRun   agentResult
	// kubeletStart is when the kubelet process was started.
	kubeletStart time.Time
	kubelet      *process
	containerd   *process
}

// nodeSetup is everything joinNode needs besides the cluster.
type nodeSetup struct {
	env   suiteEnv
	host  hostInfo
	name  string // node name = EC2 private DNS name
	agent nodeAgent
	// kubeletEnv is the kubelet's environment besides the rendered
	// environment file (as systemd gives a service: nothing of the
	// harness's own).
	kubeletEnv []string
	// noReadyWait returns as soon as the kubelet runs (a join broken on
	// purpose never becomes Ready).
	noReadyWait bool
	// al2 is AL2 user data: containerd must import /etc/containerd/config.d
	// as the AL2 image's config does (NodeConfig input: it must not, as
	// nodeadm's templates do not).
	al2 bool
}

// joinNode runs the agent for real (root /), starts containerd and the
// kubelet exactly as the rendered files say, and waits for the Node to
// become Ready. Everything it does on the host is undone by a cleanup
// registered first, on success and failure alike.
func joinNode(t *testing.T, c *cluster, s nodeSetup) *node {
	t.Helper()
	ctx := t.Context()
	if err := checkNoRuntimeState(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(s.env.workDir, "node-"+strings.ReplaceAll(t.Name(), "/", "_"))
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	n := &node{name: s.name, dir: dir, procs: &processGroup{logDir: filepath.Join(dir, "logs")}}
	td := &nodeTeardown{node: n, cluster: c, keep: s.env.keep,
		leakBefore: topLevelEntries(leakWatchDirs), runtime: takeRuntimeBaseline()}
	t.Cleanup(func() { td.run(t) })

	ami, err := amiFiles(ctx, s.env.k8s("kubelet"))
	if err != nil {
		t.Fatal(err)
	}
	n.dryRun(t, s.agent, ami)
	td.prepareHost(t, ami, s.name, s.host.ip.String())
	if n.tl, err = watchJoin(ctx, c.admin, s.name); err != nil {
		t.Fatalf("watch nodes and CSRs: %v", err)
	}
	n.render(t, s.agent, s.al2)
	n.startContainerd(t, s.env.imagesDir)
	n.startKubelet(t, s.env.k8s("kubelet"), s.kubeletEnv)
	if s.noReadyWait {
		return n
	}
	watched := []*process{n.containerd, n.kubelet, c.apiserver, c.approver}
	if err := waitUntil(ctx, "node "+s.name+" Ready", 2*time.Minute, 100*time.Millisecond, watched,
		func(context.Context) (bool, string, error) {
			_, ok := n.tl.at(msNodeReady)
			_, reg := n.tl.at(msNodeRegistered)
			return ok, fmt.Sprintf("registered=%v", reg), nil
		}); err != nil {
		t.Fatal(err)
	}
	return n
}

// dryRun runs the agent under a scratch root that sees this machine's
// hardware and AMI files, to learn exactly which node files it writes
// (they are snapshotted before the real run and restored after).
func (n *node) dryRun(t *testing.T, agent nodeAgent, ami map[string][]byte) {
	t.Helper()
	n.dryRoot = filepath.Join(n.dir, "dryrun-root")
	if err := linkHostFacts(n.dryRoot); err != nil {
		t.Fatal(err)
	}
	if err := writeFilesUnder(n.dryRoot, ami); err != nil {
		t.Fatal(err)
	}
	res, err := agent.render(t.Context(), n.dryRoot)
	if err != nil {
		t.Fatalf("agent dry run: %v", err)
	}
	n.dryRunResult = res
	written, err := listFiles(n.dryRoot, append(append([]string{}, hostFactDirs...), sortedKeys(ami)...)...)
	if err != nil {
		t.Fatal(err)
	}
	n.written = written
	t.Logf("%s writes %d files: %s", agent.name(), len(written), strings.Join(written, " "))
}

// prepareHost snapshots every host file the scenario will write, then
// plays the AMI (version files), DNS (node name → the host's address) and the CNI
// installer (pod network config).
func (td *nodeTeardown) prepareHost(t *testing.T, ami map[string][]byte, nodeName, nodeIP string) {
	t.Helper()
	paths := append(append([]string{cniConflist}, td.node.written...), sortedKeys(ami)...)
	snap, err := snapshotFiles(paths)
	if err != nil {
		t.Fatal(err)
	}
	td.snapshot = snap
	if err := writeFilesUnder("/", ami); err != nil {
		t.Fatal(err)
	}
	if err := addHostsEntry("/etc/hosts", nodeIP, nodeName); err != nil {
		t.Fatal(err)
	}
	td.hosts = true
	if err := writeCNIConflist(cniConflist); err != nil {
		t.Fatal(err)
	}
}

// render is the real agent run on the real paths. The files must be the
// ones the dry run wrote, byte for byte (the agent's own state, such as
// the discovery cache, only has to exist).
func (n *node) render(t *testing.T, agent nodeAgent, al2 bool) {
	t.Helper()
	n.agentStart = time.Now()
	res, err := agent.render(t.Context(), "/")
	if err != nil {
		t.Fatalf("agent: %v", err)
	}
	n.agentRun = res
	t.Logf("%s rendered the node in %s; its output:\n%s", agent.name(), res.took.Round(time.Microsecond), res.output)
	differ, err := compareWithDryRun(n)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range differ {
		t.Errorf("%s differs between --root %s and --root /", p, n.dryRoot)
	}
	if n.rendered, err = readRendered("/"); err != nil {
		t.Fatalf("read rendered files: %v", err)
	}
	t.Logf("kubelet args: %s", strings.Join(n.rendered.args, " "))
	if err := checkContainerdImports(t.Context(), al2); err != nil {
		t.Error(err)
	}
}

// startContainerd starts containerd from its rendered config and imports
// the local images (no registry here).
func (n *node) startContainerd(t *testing.T, imagesDir string) {
	t.Helper()
	ctx := t.Context()
	n.containerd = n.procs.start(t, procSpec{name: "containerd",
		argv: []string{"containerd", "--config", containerdConfigFile}})
	if err := waitUntil(ctx, "containerd socket", 30*time.Second, 100*time.Millisecond, []*process{n.containerd},
		func(ctx context.Context) (bool, string, error) {
			_, err := ctr(ctx, "version")
			return err == nil, fmt.Sprint(err), nil
		}); err != nil {
		t.Fatal(err)
	}
	if err := importImages(ctx, filepath.Join(imagesDir, "pause.tar"), filepath.Join(imagesDir, "busybox.tar")); err != nil {
		t.Fatal(err)
	}
}

// startKubelet runs exactly `kubelet $NODEADM_KUBELET_ARGS` with the
// environment kubelet.service gets from systemd (its drop-ins,
// Environment=, EnvironmentFile=, the manager's DefaultEnvironment, as
// the doctor reads them), then base (the instance's), then the
// environment file's variables.
func (n *node) startKubelet(t *testing.T, kubeletBin string, base []string) {
	t.Helper()
	vars := map[string]string{"PATH": amiPATH}
	for k, v := range doctor.ServiceEnvironment("/", "kubelet.service").Vars {
		vars[k] = v.Value
	}
	for _, kv := range base {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	for k, v := range n.rendered.env {
		vars[k] = v
	}
	env := make([]string, 0, len(vars))
	for _, k := range sortedKeys(vars) {
		env = append(env, k+"="+vars[k])
	}
	n.kubeletStart = time.Now()
	n.kubelet = n.procs.start(t, procSpec{name: "kubelet", argv: append([]string{kubeletBin}, n.rendered.args...), env: env, clean: true})
}

// nodeTeardown undoes joinNode in dependency order.
type nodeTeardown struct {
	node       *node
	cluster    *cluster
	keep       bool
	snapshot   *fileSnapshot
	hosts      bool
	leakBefore map[string]bool
	runtime    runtimeBaseline
}

func (td *nodeTeardown) run(t *testing.T) {
	// t.Context is already cancelled during cleanup.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	n, c := td.node, td.cluster
	if t.Failed() {
		n.procs.dumpLogs(t, 60)
	}
	if n.kubelet != nil {
		if ended, _ := n.kubelet.exited(); !ended {
			if err := deletePods(ctx, c, n.name); err != nil {
				t.Logf("cleanup: delete pods: %v", err)
			}
		}
		if d := n.kubelet.stop(15 * time.Second); d > 0 {
			t.Logf("stopped kubelet (pid %d) in %s", n.kubelet.pid(), d.Round(time.Millisecond))
		}
	}
	if n.containerd != nil {
		if ended, _ := n.containerd.exited(); !ended {
			if err := removeAllContainers(ctx); err != nil {
				t.Errorf("cleanup: remove containers: %v", err)
			}
		}
	}
	n.procs.stopAll(t, 15*time.Second)
	if err := cleanRuntimeState(td.runtime); err != nil {
		t.Errorf("cleanup: runtime state: %v", err)
	}
	if td.snapshot != nil {
		if err := td.snapshot.restore(); err != nil {
			t.Errorf("cleanup: restore node files: %v", err)
		}
	}
	// The suite refused to start with agent state present, so what is
	// there now is this scenario's (normally already removed above, as the
	// dry run listed it).
	for _, d := range agentStateDirs {
		if err := os.RemoveAll(d); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	}
	if td.hosts {
		if err := removeHostsEntries("/etc/hosts"); err != nil {
			t.Errorf("cleanup: /etc/hosts: %v", err)
		}
	}
	if err := forgetNode(ctx, c, n.name); err != nil {
		t.Errorf("cleanup: API objects: %v", err)
	}
	for p := range topLevelEntries(leakWatchDirs) {
		if !td.leakBefore[p] {
			t.Errorf("cleanup: %s was left behind", p)
		}
	}
	if !t.Failed() && !td.keep {
		_ = os.RemoveAll(n.dir)
	} else {
		t.Logf("node files kept in %s", n.dir)
	}
}

// deletePods deletes the pods bound to node and waits until the kubelet
// has torn them down (sandbox, CNI, volumes) and confirmed.
func deletePods(ctx context.Context, c *cluster, nodeName string) error {
	pods, err := c.admin.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + nodeName})
	if err != nil {
		return err
	}
	grace := int64(1)
	for _, p := range pods.Items {
		if err := c.admin.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &grace}); err != nil {
			return err
		}
	}
	return waitInCleanup(ctx, "pods deleted", 30*time.Second, 200*time.Millisecond, func(ctx context.Context) (bool, string, error) {
		left, err := c.admin.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + nodeName})
		if err != nil {
			return false, err.Error(), nil
		}
		return len(left.Items) == 0, fmt.Sprintf("%d pods left", len(left.Items)), nil
	})
}

// forgetNode deletes the Node, its Lease and every CSR, so the next
// scenario joins from scratch.
func forgetNode(ctx context.Context, c *cluster, nodeName string) error {
	var errs []string
	if err := c.admin.CoreV1().Nodes().Delete(ctx, nodeName, metav1.DeleteOptions{}); err != nil && !isNotFound(err) {
		errs = append(errs, err.Error())
	}
	if err := c.admin.CoordinationV1().Leases(corev1.NamespaceNodeLease).Delete(ctx, nodeName, metav1.DeleteOptions{}); err != nil && !isNotFound(err) {
		errs = append(errs, err.Error())
	}
	if err := c.admin.CertificatesV1().CertificateSigningRequests().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// writeCNIConflist writes a bridge + host-local + loopback network, the
// minimal pod network that makes the node Ready and gives pods an IP.
func writeCNIConflist(path string) error {
	const conflist = `{
  "cniVersion": "1.0.0",
  "name": "nodeboot-e2e",
  "plugins": [
    {"type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "10.244.0.0/24"}]], "routes": [{"dst": "0.0.0.0/0"}]}},
    {"type": "loopback"}
  ]
}
`
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(conflist), 0o644)
}

// hostFactDirs are the read-only host facts the agent probes under its
// root (CPUs, memory, PCI devices, the runtime binaries).
var hostFactDirs = []string{"/sys", "/proc", "/usr"}

// linkHostFacts makes root see this machine's hostFactDirs through
// symlinks, so that a dry run under root probes the same machine.
func linkHostFacts(root string) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	for _, d := range hostFactDirs {
		if err := os.Symlink(d, filepath.Join(root, d)); err != nil {
			return err
		}
	}
	return nil
}
