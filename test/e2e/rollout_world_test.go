//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/x509"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// The rollout suite's identities and fixed values.
const (
	rolloutServiceAccount = "system:serviceaccount:kube-system:nodeboot-rollout"
	schedulerUser         = "system:kube-scheduler"
	kwokUser              = "kwok-controller"
	kwokAnnotation        = "kwok.x-k8s.io/node"
	rolloutRegion         = "us-west-2"
)

// rolloutWorld is the control plane of the e2e suite plus what a node-group
// rollout needs: kube-scheduler, kwok playing the kubelets, the Auto
// Scaling and EC2 API stubs whose instances become kwok Nodes, and the
// nodeboot-rollout controller as a process with its own identity and the
// RBAC from deploy/rollout.
type rolloutWorld struct {
	c      *cluster
	env    suiteEnv
	client client.Client // admin, controller-runtime
	ec2    *awstest.EC2
	asg    *awstest.AutoScaling

	bin               string // nodeboot-rollout
	adminKubeconfig   string
	rolloutKubeconfig string
	metricsAddr       string
	pprofAddr         string
	awsEnv            []string

	mu  sync.Mutex
	ctl *process
	// joining holds, per instance, a channel closed once its Node exists:
	// Nodes register concurrently, as real ones do.
	joining map[string]chan struct{}
	// inService holds, per Node name, when its instance entered service.
	inService map[string]time.Time
}

// startRolloutWorld brings everything up; the cleanups of t stop it.
func startRolloutWorld(t *testing.T, env suiteEnv, metricsPort int) *rolloutWorld {
	t.Helper()
	for _, b := range []string{"kube-scheduler", "kwok"} {
		requireFile(t, env.k8s(b), "test/e2e/scripts/build-k8s.sh and build-kwok.sh")
	}
	w := &rolloutWorld{env: env, joining: map[string]chan struct{}{}, inService: map[string]time.Time{}}
	w.bin = buildBinary(t, env.repo, filepath.Join(env.workDir, "bin"), "./cmd/nodeboot-rollout")
	// kwok refreshes node heartbeats rarely (no Leases): give the node
	// lifecycle controller a grace period longer than any run. Its
	// controllers move hundreds of pods per batch (ReplicaSets, DaemonSets,
	// pod garbage collection): at the default 20 requests/s the ReplicaSet
	// controller waited up to 10 s to create replacements, and the scale
	// benchmark measured that throttle instead of the rollout. The
	// scheduler and the rollout controller get the same allowance.
	w.c = startCluster(t, env, clusterOptions{nodeName: "unused", controllerManagerArgs: []string{
		"--node-monitor-grace-period=1h", "--kube-api-qps=200", "--kube-api-burst=400"}})
	w.adminKubeconfig = w.c.adminKubeconfig

	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, rolloutv1.AddToScheme, apiextensionsv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := clientcmdRESTConfig(w.adminKubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if w.client, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		t.Fatal(err)
	}
	w.applyDeployManifests(t)

	w.startScheduler(t)
	w.startKwok(t)

	w.ec2 = awstest.NewEC2(t)
	w.asg = awstest.NewAutoScaling(t, w.ec2, awstest.GroupHooks{InService: w.nodeUp(t), Terminated: w.nodeDown(t)})
	w.awsEnv = []string{
		"AWS_ENDPOINT_URL_AUTO_SCALING=" + w.asg.URL, "AWS_ENDPOINT_URL_EC2=" + w.ec2.URL, "AWS_REGION=" + rolloutRegion,
		"AWS_ACCESS_KEY_ID=AKIDE2E", "AWS_SECRET_ACCESS_KEY=e2e", "AWS_CONFIG_FILE=/nonexistent", "AWS_SHARED_CREDENTIALS_FILE=/nonexistent",
		"AWS_EC2_METADATA_DISABLED=true", "AWS_ENDPOINT_URL=", "HTTPS_PROXY=", "HTTP_PROXY=",
	}
	w.rolloutKubeconfig = w.kubeconfigFor(t, "nodeboot-rollout", rolloutServiceAccount, nil)
	w.metricsAddr = loopback(metricsPort)
	pprofPort, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	w.pprofAddr = loopback(pprofPort)
	w.startController(t)
	return w
}

// kubeconfigFor issues a client certificate for user (and groups) and
// writes a kubeconfig with it.
func (w *rolloutWorld) kubeconfigFor(t *testing.T, file, user string, groups []string) string {
	t.Helper()
	kp, err := w.c.ca.issue(certSpec{commonName: user, orgs: groups, usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := kubeconfigBytes(w.c.server, w.c.ca.certPEM, user, credentials{certPEM: kp.certPEM, keyPEM: kp.keyPEM})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(w.c.dir, file+".kubeconfig")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// applyDeployManifests applies deploy/rollout's CRD, service account and
// RBAC (not the Deployment: the controller runs as a local process with
// the service account's identity), and waits for the CRD.
func (w *rolloutWorld) applyDeployManifests(t *testing.T) {
	t.Helper()
	ctx := t.Context()
	dir := filepath.Join(w.env.repo, "deploy", "rollout")
	for _, f := range []string{"nodeboot.io_nodegrouprollouts.yaml", "serviceaccount.yaml", "clusterrole.yaml", "clusterrolebinding.yaml", "role.yaml", "rolebinding.yaml"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &obj.Object); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := w.client.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("apply %s: %v", f, err)
		}
	}
	err := waitUntil(ctx, "NodeGroupRollout CRD served", time.Minute, 200*time.Millisecond, w.c.procs.procs, func(ctx context.Context) (bool, string, error) {
		var list rolloutv1.NodeGroupRolloutList
		if err := w.client.List(ctx, &list); err != nil {
			return false, err.Error(), nil
		}
		return true, "", nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (w *rolloutWorld) startScheduler(t *testing.T) {
	t.Helper()
	kc := w.kubeconfigFor(t, "scheduler", schedulerUser, nil)
	w.c.procs.start(t, procSpec{name: "kube-scheduler", argv: []string{
		w.env.k8s("kube-scheduler"), "--kubeconfig=" + kc, "--leader-elect=false", "--secure-port=0", "--profiling=false",
		"--kube-api-qps=200", "--kube-api-burst=400",
	}})
}

// kwokConfig raises kwok's parallelism from 4 (startKwok).
const kwokConfig = `apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  nodePlayStageParallelism: 64
  podPlayStageParallelism: 64
`

// startKwok runs kwok for the Nodes carrying the kwok annotation: it keeps
// them Ready and runs the pods bound to them.
func (w *rolloutWorld) startKwok(t *testing.T) {
	t.Helper()
	kc := w.kubeconfigFor(t, "kwok", kwokUser, []string{"system:masters"})
	// kwok plays the kubelets of every Node, by default 4 Nodes' and 4
	// pods' status changes at a time: a wave of 50 Nodes registered and
	// made Ready one after another, and their DaemonSet pods and a batch's
	// replacements started the same way. Real kubelets each do their own
	// at once, so kwok gets as many at a time as a wave holds.
	cfg := filepath.Join(w.c.dir, "kwok.yaml")
	if err := os.WriteFile(cfg, []byte(kwokConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	w.c.procs.start(t, procSpec{name: "kwok", argv: []string{
		w.env.k8s("kwok"), "--kubeconfig=" + kc, "--config=" + cfg,
		"--manage-all-nodes=false", "--manage-nodes-with-annotation-selector=" + kwokAnnotation + "=fake",
		// No node Leases: kwok then refreshes each node's status every 10
		// to 20 minutes, which keeps 500 simulated nodes cheap.
		"--node-lease-duration-seconds=0", "--cidr=10.128.0.0/16", "--node-ip=10.255.0.1",
	}, env: []string{"HOME=" + w.c.dir}})
}

// The controller's client-side rate limit in this world (the scheduler's
// and the controller manager's too); the eviction floor's client gets the
// same.
const controllerQPS, controllerBurst = 200, 400

// controllerClient is a client with the controller's identity (its
// service account: the same API priority and fairness level) and rate
// limit.
func (w *rolloutWorld) controllerClient(t *testing.T) client.Client {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", w.rolloutKubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = controllerQPS, controllerBurst
	c, err := client.New(cfg, client.Options{Scheme: w.client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// startController starts nodeboot-rollout controller with the service
// account's identity and leader election.
func (w *rolloutWorld) startController(t *testing.T) {
	t.Helper()
	p := w.c.procs.start(t, procSpec{name: "nodeboot-rollout", argv: []string{
		w.bin, "controller", "--kubeconfig=" + w.rolloutKubeconfig,
		"--leader-elect=true", "--leader-election-namespace=kube-system",
		"--metrics-bind-address=" + w.metricsAddr, "--health-probe-bind-address=127.0.0.1:0",
		"--group-refresh=1s", "--poll=2s", "--log-format=text", "--log-level=debug", "--pprof-bind-address=" + w.pprofAddr,
		// The allowance the scheduler and the controller manager get here:
		// at the default 50 requests/s the 1,000 node patches of a 500-node
		// rollout (taint, then cordon) alone wait 16 s (docs/rollout.md).
		fmt.Sprintf("--kube-api-qps=%d", controllerQPS), fmt.Sprintf("--kube-api-burst=%d", controllerBurst),
	}, env: w.awsEnv})
	w.mu.Lock()
	w.ctl = p
	w.mu.Unlock()
}

// killController kills the controller with SIGKILL (no cleanup, the Lease
// stays held until it expires) and returns once it is gone.
func (w *rolloutWorld) killController(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	p := w.ctl
	w.mu.Unlock()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done
	// The process group no longer watches it (waits would fail on it).
	w.c.procs.procs = slices.DeleteFunc(w.c.procs.procs, func(q *process) bool { return q == p })
	t.Logf("killed nodeboot-rollout (pid %d)", p.pid())
}

// controller returns the running controller process.
func (w *rolloutWorld) controller() *process {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ctl
}

// cli runs a nodeboot-rollout command as the cluster admin.
func (w *rolloutWorld) cli(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), w.bin, append(args, "--kubeconfig="+w.adminKubeconfig)...)
	cmd.Env = append(os.Environ(), w.awsEnv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// group is one Auto Scaling group of the suite and its launch template.
type group struct {
	name     string
	template string
	zones    []string
	size     int
}

// createGroup creates a launch template (version 1) and a group of size
// instances over zones; their Nodes appear through the hooks.
func (w *rolloutWorld) createGroup(t *testing.T, name string, size int, zones ...string) group {
	t.Helper()
	g := group{name: name, template: "lt-" + name, zones: zones, size: size}
	w.ec2.AddLaunchTemplate(awstest.LaunchTemplate{ID: g.template, Name: name, ImageID: "ami-0000000000000000a", InstanceType: "m5.large"})
	if err := w.asg.CreateGroup(awstest.AutoScalingGroup{Name: name, Zones: zones, MinSize: 1, MaxSize: int32(size), Desired: int32(size),
		LaunchTemplateID: g.template, LaunchTemplateVersion: "1"}); err != nil {
		t.Fatal(err)
	}
	w.asg.WaitHooks()
	err := waitUntil(t.Context(), fmt.Sprintf("%d Ready nodes of group %s", size, name), 2*time.Minute, 200*time.Millisecond, w.c.procs.procs,
		func(ctx context.Context) (bool, string, error) {
			nodes, err := w.groupNodes(ctx, name)
			if err != nil {
				return false, "", err
			}
			ready := 0
			for i := range nodes {
				if plan.NodeReady(&nodes[i]) {
					ready++
				}
			}
			return ready == size, fmt.Sprintf("%d of %d Ready", ready, size), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// groupNodes lists the Nodes of a group.
func (w *rolloutWorld) groupNodes(ctx context.Context, name string) ([]corev1.Node, error) {
	var nodes corev1.NodeList
	if err := w.client.List(ctx, &nodes, client.MatchingLabels{plan.LabelNodeGroup: name}); err != nil {
		return nil, err
	}
	return nodes.Items, nil
}

// nodeUp turns an instance that entered service into a kwok Node with the
// labels a managed node group's nodes carry. Nodes register concurrently.
func (w *rolloutWorld) nodeUp(t *testing.T) func(awstest.GroupInstance) {
	return func(in awstest.GroupInstance) {
		done := make(chan struct{})
		w.mu.Lock()
		w.joining[in.ID] = done
		w.inService[in.PrivateDNSName] = time.Now()
		w.mu.Unlock()
		go func() {
			defer close(done)
			w.createNode(t, in)
		}()
	}
}

// createNode creates an instance's Node.
func (w *rolloutWorld) createNode(t *testing.T, in awstest.GroupInstance) {
	res := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("32Gi"), corev1.ResourcePods: resource.MustParse("110"),
	}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: in.PrivateDNSName,
			Labels: map[string]string{
				corev1.LabelHostname: in.PrivateDNSName, corev1.LabelOSStable: "linux", corev1.LabelArchStable: "amd64",
				corev1.LabelTopologyZone: in.Zone, corev1.LabelTopologyRegion: rolloutRegion, corev1.LabelInstanceTypeStable: in.InstanceType,
				plan.LabelNodeGroup: in.Group, plan.LabelSourceLaunchTemplateID: in.LaunchTemplateID,
				plan.LabelSourceLaunchTemplateVersion: strconv.Itoa(in.ResolvedVersion), "eks.amazonaws.com/nodegroup-image": in.ImageID,
				"type": "kwok",
			},
			Annotations: map[string]string{kwokAnnotation: "fake"},
		},
		Spec:   corev1.NodeSpec{ProviderID: "aws:///" + in.Zone + "/" + in.ID},
		Status: corev1.NodeStatus{Capacity: res, Allocatable: res, Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: in.PrivateIP}}},
	}
	ctx := t.Context() // done once the test ends: a late join is dropped
	if err := w.client.Create(ctx, n); err != nil && !apierrors.IsAlreadyExists(err) && ctx.Err() == nil {
		t.Errorf("create node %s: %v", n.Name, err)
	}
}

// joined waits until the instance's Node was created (if it ever was).
func (w *rolloutWorld) joined(id string) {
	w.mu.Lock()
	done := w.joining[id]
	delete(w.joining, id)
	w.mu.Unlock()
	if done != nil {
		<-done
	}
}

// nodeDown deletes the Node of a terminated instance; the pod garbage
// collector of kube-controller-manager removes what was left on it.
func (w *rolloutWorld) nodeDown(t *testing.T) func(awstest.GroupInstance) {
	return func(in awstest.GroupInstance) {
		w.joined(in.ID)
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: in.PrivateDNSName}}
		if err := w.client.Delete(context.Background(), n); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete node %s: %v", n.Name, err)
		}
	}
}

// rollout reads a NodeGroupRollout.
func (w *rolloutWorld) rollout(ctx context.Context, name string) (*rolloutv1.NodeGroupRollout, error) {
	ro := &rolloutv1.NodeGroupRollout{}
	return ro, w.client.Get(ctx, types.NamespacedName{Name: name}, ro)
}

// waitRollout waits until cond holds for the rollout, failing fast when it
// fails unexpectedly or the controller dies.
func (w *rolloutWorld) waitRollout(t *testing.T, name, what string, timeout time.Duration, cond func(*rolloutv1.NodeGroupRollout) bool) *rolloutv1.NodeGroupRollout {
	t.Helper()
	var last *rolloutv1.NodeGroupRollout
	err := waitUntil(t.Context(), fmt.Sprintf("rollout %s: %s", name, what), timeout, 100*time.Millisecond, []*process{w.controller()},
		func(ctx context.Context) (bool, string, error) {
			ro, err := w.rollout(ctx, name)
			if err != nil {
				return false, err.Error(), nil
			}
			last = ro
			return cond(ro), fmt.Sprintf("%s: %s", ro.Status.Phase, ro.Status.Message), nil
		})
	if err != nil {
		if last != nil {
			t.Logf("last status: %s", statusJSON(last))
		}
		t.Fatal(err)
	}
	return last
}

func statusJSON(ro *rolloutv1.NodeGroupRollout) string {
	b, _ := yaml.Marshal(ro.Status)
	return string(b)
}

// phaseIs is a waitRollout condition.
func phaseIs(p rolloutv1.Phase) func(*rolloutv1.NodeGroupRollout) bool {
	return func(ro *rolloutv1.NodeGroupRollout) bool { return ro.Status.Phase == p }
}

// rolloutEvents lists the Events recorded on a rollout, oldest first.
func (w *rolloutWorld) rolloutEvents(ctx context.Context, name string) ([]corev1.Event, error) {
	var list corev1.EventList
	if err := w.client.List(ctx, &list, client.InNamespace("default"), client.MatchingFields{"involvedObject.name": name}); err != nil {
		return nil, err
	}
	return list.Items, nil
}

// reasonCount counts Events with a reason whose message contains substr.
func reasonCount(events []corev1.Event, reason, substr string) int {
	n := 0
	for _, e := range events {
		if e.Reason == reason && strings.Contains(e.Message, substr) {
			n += int(max(e.Count, 1))
		}
	}
	return n
}
