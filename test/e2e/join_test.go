//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// The fake EC2 placement.
const (
	region = "us-west-2"
	zone   = "us-west-2a"
)

// joinScenario is one way of joining the node.
type joinScenario struct {
	name         string
	apiVersion   string
	bootstrap    bool // bootstrap-token identity with CA discovery (no CA in user data)
	instanceID   string
	instanceType string
	labels       map[string]string
	taints       []corev1.Taint
	// bootstrapSh is AL2 user data calling /etc/eks/bootstrap.sh with the
	// cluster name only: endpoint, CA and service CIDR come from
	// eks:DescribeCluster, which throttles and fails before it answers.
	bootstrapSh bool
	// generated names the AMI family whose user data `nodeboot userdata
	// generate --as eks` writes from a NodeGroup (generated_test.go).
	generated string
	// wantMaxPods is the max pods the generated user data must give.
	wantMaxPods int32
}

var joinScenarios = []joinScenario{
	{
		name:         "exec-credential",
		apiVersion:   "node.eks.aws/v1alpha1",
		instanceID:   "i-0e2e00000000000a1",
		instanceType: "m5.large",
		labels:       map[string]string{"nodeboot.io/e2e": "exec-credential", "team": "blue"},
		taints:       []corev1.Taint{{Key: "nodeboot.io/e2e", Value: "exec", Effect: corev1.TaintEffectNoSchedule}},
	},
	{
		name:         "bootstrap-token",
		apiVersion:   "nodeboot.io/v1alpha1",
		bootstrap:    true,
		instanceID:   "i-0e2e00000000000b2",
		instanceType: "t3.medium",
		labels:       map[string]string{"nodeboot.io/e2e": "bootstrap-token", "team": "green"},
		taints:       []corev1.Taint{{Key: "nodeboot.io/e2e", Value: "bootstrap", Effect: corev1.TaintEffectNoExecute}},
	},
	{
		name:         "al2-bootstrap-sh",
		apiVersion:   "node.eks.aws/v1alpha1",
		bootstrapSh:  true,
		instanceID:   "i-0e2e00000000000c3",
		instanceType: "c5.large",
		// What an EKS managed node group puts in --node-labels, plus ours.
		labels: map[string]string{
			"eks.amazonaws.com/nodegroup": "al2-workers", "eks.amazonaws.com/capacityType": "ON_DEMAND",
			"nodeboot.io/e2e": "al2-bootstrap-sh", "team": "red",
		},
		taints: []corev1.Taint{{Key: "nodeboot.io/e2e", Value: "al2", Effect: corev1.TaintEffectPreferNoSchedule}},
	},
	{
		name:         "generated-al2023",
		apiVersion:   "node.eks.aws/v1alpha1",
		generated:    "al2023",
		instanceID:   "i-0e2e00000000000d4",
		instanceType: "m5.xlarge",
		wantMaxPods:  58,
		// EKS's labels (generated), plus the node group's.
		labels: map[string]string{
			"eks.amazonaws.com/nodegroup": "al2023-generated", "eks.amazonaws.com/capacityType": "ON_DEMAND",
			"eks.amazonaws.com/nodegroup-image": generatedImage, "nodeboot.io/e2e": "generated-al2023", "team": "yellow",
		},
		taints: []corev1.Taint{{Key: "nodeboot.io/e2e", Value: "gen2023", Effect: corev1.TaintEffectNoSchedule}},
	},
	{
		name:         "generated-al2",
		apiVersion:   "node.eks.aws/v1alpha1",
		generated:    "al2",
		instanceID:   "i-0e2e00000000000e5",
		instanceType: "t3.medium",
		wantMaxPods:  17,
		labels: map[string]string{
			"eks.amazonaws.com/nodegroup": "al2-generated", "eks.amazonaws.com/capacityType": "ON_DEMAND",
			"eks.amazonaws.com/nodegroup-image": generatedImage, "nodeboot.io/e2e": "generated-al2", "team": "purple",
		},
		taints: []corev1.Taint{{Key: "nodeboot.io/e2e", Value: "gen2", Effect: corev1.TaintEffectNoExecute}},
	},
}

// TestJoin brings up one control plane and joins this machine to it once
// per scenario, one kubelet at a time.
func TestJoin(t *testing.T) {
	env := loadEnv(t)
	host, err := detectHost()
	if err != nil {
		t.Fatal(err)
	}
	nodeName := ec2PrivateDNSName(host.ip, region)
	t.Logf("host %s %s (%s) plays node %s", host.iface, host.ip, host.mac, nodeName)

	binDir := filepath.Join(env.workDir, "bin")
	agentBin := buildBinary(t, env.repo, binDir, "./cmd/nodeboot")
	buildBinary(t, env.repo, binDir, "./cmd/nodeboot-cel") // next to the agent, which runs it for maxPodsExpression
	approverBin := buildBinary(t, env.repo, binDir, "./cmd/nodeboot-approver")

	rep := &report{Generated: time.Now().UTC(), Host: fmt.Sprintf("%s %s", host.iface, host.ip), Kubernetes: kubeletVersion(env)}
	inv := startInventory(t, host, nodeName)
	c := startCluster(t, env, clusterOptions{nodeName: nodeName, identity: newAWSIdentity(t), approverBin: approverBin, approverPolicy: []string{
		// What an operator would configure: nodes live in the VPC CIDR and
		// are named like EC2 private DNS names of this region.
		"--allowed-cidrs=" + host.network.String(),
		`--hostname-regex=ip-[0-9]+-[0-9]+-[0-9]+-[0-9]+\.` + regexp.QuoteMeta(region) + `\.compute\.internal`,
		approverClusterFlag,
	}, approverEnv: inv.approverEnv()})
	rep.ControlPlane = map[string]float64{}
	for k, d := range c.timings {
		rep.ControlPlane[k] = ms(d)
	}
	t.Cleanup(func() {
		if err := rep.write(env.report); err != nil {
			t.Errorf("write report: %v", err)
		} else {
			t.Logf("timings written to %s", env.report)
		}
	})

	t.Run("access-before-launch", func(t *testing.T) { accessBeforeLaunch(t, env, c) })
	for _, sc := range joinScenarios {
		t.Run(sc.name, func(t *testing.T) {
			sr := &scenarioReport{Name: sc.name, NodeName: nodeName, Identity: identityName(sc)}
			rep.Scenarios = append(rep.Scenarios, sr)
			runJoin(t, env, c, inv, host, nodeName, agentBin, sc, sr)
			sr.Passed = !t.Failed()
		})
	}
	t.Run("broken-joins", func(t *testing.T) { brokenJoins(t, env, c, host, nodeName, agentBin) })
}

func identityName(sc joinScenario) string {
	if sc.bootstrap {
		return "BootstrapToken"
	}
	return "ExecCredential"
}

// runJoin joins the node for one scenario and checks everything a working
// node must show.
func runJoin(t *testing.T, env suiteEnv, c *cluster, inv *cloudInventory, host hostInfo, nodeName, agentBin string, sc joinScenario, sr *scenarioReport) {
	ctx := t.Context()
	in := userDataInput{
		APIVersion: sc.apiVersion, Cluster: clusterName,
		Labels: formatLabels(sc.labels), Taints: formatTaints(sc.taints),
		SandboxImage: pauseImage, NoFileLimit: hardNoFileLimit(t), NodeIP: host.ip.String(),
	}
	var eks *eksAPI
	switch {
	case sc.bootstrapSh:
		// The cluster details exist only in EKS.
		eks = startEKS(t, awstest.Cluster{Name: clusterName, Endpoint: c.server, CA: c.ca.certPEM,
			ServiceIPv4CIDR: serviceCIDR, IPFamily: "ipv4", Version: "1.34", ClusterSecurityGroupID: e2eClusterSG}, coldBootFaults...)
	case sc.bootstrap:
		in.Server, in.CIDR = c.server, serviceCIDR
		in.BootstrapToken, in.CAHash = c.bootstrapToken, spkiPin(c.ca.cert)
	default:
		in.Server, in.CIDR, in.CAPEM = c.server, serviceCIDR, c.ca.certPEM
	}
	render := renderUserData
	switch {
	case sc.bootstrapSh:
		render = renderAL2UserData
	case sc.generated != "":
		render = func(in userDataInput) ([]byte, error) {
			return renderGeneratedUserData(agentBin, filepath.Join(env.workDir, "nodegroup-"+sc.name), sc, in)
		}
	}
	userData, err := render(in)
	if err != nil {
		t.Fatal(err)
	}
	meta := instanceMeta{instanceID: sc.instanceID, instanceType: sc.instanceType,
		region: region, az: zone, host: host, dnsName: nodeName, userData: userData,
		iam: c.identity.launch(sc.instanceID, sc.instanceType, nodeName, nodeRole)}
	agent := newNodebootAgent(t, agentBin, env.k8sBin, meta, eks)
	if sc.bootstrap {
		t.Run("ca-pin-mismatch-refused", func(t *testing.T) {
			wrong := in
			wrong.CAHash = "sha256:" + strings.Repeat("0", 64)
			bad, err := renderUserData(wrong)
			if err != nil {
				t.Fatal(err)
			}
			badMeta := meta
			badMeta.userData = bad
			assertAgentRefuses(t, newNodebootAgent(t, agentBin, env.k8sBin, badMeta, nil), t.TempDir())
		})
	}
	sr.Agent = agent.name()

	n := joinNode(t, c, nodeSetup{env: env, host: host, name: nodeName, agent: agent, kubeletEnv: agent.kubeletEnv(env),
		al2: sc.bootstrapSh || sc.generated == "al2"})
	exposeLogs(t, n)
	sr.MaxPods = n.rendered.config.MaxPods
	if sc.wantMaxPods != 0 && sr.MaxPods != sc.wantMaxPods {
		t.Errorf("rendered maxPods = %d, want %d (the generated user data's value for %s)", sr.MaxPods, sc.wantMaxPods, sc.instanceType)
	}
	if err := waitUntil(ctx, "serving CSR issued", 30*time.Second, 50*time.Millisecond, []*process{n.kubelet, c.approver},
		func(context.Context) (bool, string, error) {
			_, ok := n.tl.at(msServingIssued)
			return ok, "CSR " + n.tl.servingCSRName(), nil
		}); err != nil {
		t.Fatal(err)
	}

	t.Run("ec2-calls", func(t *testing.T) {
		// The node name comes from DescribeInstances: exactly one EC2 call
		// per agent run (dry run + real run), as nodeadm's e2e asserts.
		if got := agent.ec2.Calls(awstest.ActionDescribeInstances); got != 2 || agent.ec2.TotalCalls() != 2 {
			t.Errorf("EC2 calls: %d DescribeInstances, %d in total; want 2 and 2 (one per agent run)", got, agent.ec2.TotalCalls())
		}
	})
	if sc.bootstrapSh {
		t.Run("eks-discovery", func(t *testing.T) { assertEKSDiscovery(t, c, n, agent, sr) })
		t.Run("kubelet-extra-args", func(t *testing.T) {
			// bootstrap.sh appends $KUBELET_EXTRA_ARGS last, verbatim.
			want, args := kubeletExtraArgs(in), n.rendered.args
			if len(args) < len(want) || !slices.Equal(args[len(args)-len(want):], want) {
				t.Errorf("kubelet args end with %q, want --kubelet-extra-args %q last", args[max(0, len(args)-len(want)):], want)
			}
		})
	}
	t.Run("identity", func(t *testing.T) { assertIdentity(t, c, n, sc, agent.kubeletEnv(env)) })
	t.Run("node", func(t *testing.T) {
		got, err := c.admin.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		assertNodeObject(t, got, nodeExpectations{name: nodeName, internalIP: host.ip.String(),
			providerID: "aws:///" + zone + "/" + sc.instanceID, labels: sc.labels, taints: sc.taints}, n.rendered.config)
	})
	t.Run("serving-csr", func(t *testing.T) {
		csr, err := c.admin.CertificatesV1().CertificateSigningRequests().Get(ctx, n.tl.servingCSRName(), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		assertServingCSR(t, csr, c.ca.cert, nodeName, host.ip.String())
		assertApprovedAgainstInventory(t, csr, inv, sc.instanceID)
	})
	denv := doctorEnv(t, env, agent, c)
	t.Run("doctor", func(t *testing.T) {
		assertHealthyDoctor(t, agentBin, denv, sr)
		if sc.name == joinScenarios[0].name {
			t.Run("security-group-blocks-kubelet-port", func(t *testing.T) { assertSecurityGroupBlocks(t, agent, agentBin, denv) })
		}
	})
	t.Run("support-bundle", func(t *testing.T) {
		assertSupportBundle(t, c, nodeName, agentBin, denv, bundleSecrets(t, c, sc.instanceID))
	})
	t.Run("pod-logs", func(t *testing.T) {
		greeting := "hello-from-" + sc.name
		res, err := runPod(ctx, c, nodeName, "hello-"+sc.name, greeting)
		if err != nil {
			t.Fatal(err)
		}
		if res.logs != greeting+"\n" {
			t.Errorf("logs of the pod = %q, want %q", res.logs, greeting+"\n")
		}
		sr.timing("pod_running", res.running)
		t.Logf("pod ran with IP %s; logs via the API server: %q", res.podIP, res.logs)
	})
	t.Run("forged-csrs", func(t *testing.T) {
		nodeClient, err := nodeCredentialClient(ctx, c, sc)
		if err != nil {
			t.Fatal(err)
		}
		sa, err := serviceAccountClient(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		boot, err := tokenClient(c, c.bootstrapToken)
		if err != nil {
			t.Fatal(err)
		}
		assertForgeriesDenied(t, c, forgeries(nodeName, host, inv, nodeClient, c.admin, sa, boot))
	})
	t.Run("status-spoof", func(t *testing.T) {
		nodeClient, err := nodeCredentialClient(ctx, c, sc)
		if err != nil {
			t.Fatal(err)
		}
		assertStatusSpoofDenied(t, c, nodeClient, nodeName, inv.neighbour)
	})

	recordMilestones(sr, n)
	sr.logTable(t)
	sr.recordTargets(t, targetsFor(sc))
}

// recordMilestones turns the join's timeline into report timings.
func recordMilestones(sr *scenarioReport, n *node) {
	sr.timing("agent_files_written", n.agentRun.took)
	if len(n.agentRun.eks) > 0 {
		backoff := retryBackoff(n.agentRun.eks)
		sr.timing("eks_retry_backoff", backoff)
		sr.timing("agent_files_written_excl_backoff", n.agentRun.took-backoff)
	}
	since := func(metric string, from time.Time, milestone string) {
		if at, ok := n.tl.at(milestone); ok {
			sr.timing(metric, at.Sub(from))
		}
	}
	since("agent_to_node_registered", n.agentStart, msNodeRegistered)
	since("agent_to_node_ready", n.agentStart, msNodeReady)
	since("join", n.agentStart, msNodeReady)
	since("kubelet_start_to_node_ready", n.kubeletStart, msNodeReady)
	pairs := []struct{ metric, from, to string }{
		{"serving_csr_approval", msServingCreated, msServingApproved},
		{"serving_csr_issued", msServingCreated, msServingIssued},
		{"client_csr_approval", msClientCSRCreated, msClientCSRApproved},
		{"client_csr_issued", msClientCSRCreated, msClientCSRIssued},
	}
	for _, p := range pairs {
		if d, ok := n.tl.between(p.from, p.to); ok {
			sr.timing(p.metric, d)
		}
	}
}

// nodeCredentialClient returns a client acting as the joined kubelet: a
// token of the instance's role session (exec credential), or the client
// certificate the kubelet obtained through TLS bootstrapping.
func nodeCredentialClient(ctx context.Context, c *cluster, sc joinScenario) (kubernetes.Interface, error) {
	if !sc.bootstrap {
		tok, err := c.identity.token(ctx, c.identity.session(sc.instanceID))
		if err != nil {
			return nil, err
		}
		return tokenClient(c, tok)
	}
	pemBytes, err := os.ReadFile(filepath.Join(kubeletPKIDir, "kubelet-client-current.pem"))
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(restConfig(c.server, c.ca.certPEM, credentials{certPEM: pemBytes, keyPEM: pemBytes}))
}

// kubeletVersion returns `kubelet --version`.
func kubeletVersion(env suiteEnv) string {
	out, err := exec.Command(env.k8s("kubelet"), "--version").Output()
	if err != nil {
		return "unknown: " + err.Error()
	}
	return strings.TrimSpace(string(out))
}

// formatTaints renders taints as the --register-with-taints value.
func formatTaints(taints []corev1.Taint) string {
	parts := make([]string, len(taints))
	for i, tn := range taints {
		parts[i] = tn.ToString()
	}
	return strings.Join(parts, ",")
}

// hardNoFileLimit is this host's RLIMIT_NOFILE hard limit: without
// CAP_SYS_RESOURCE, containers cannot be given more.
func hardNoFileLimit(t *testing.T) uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	return lim.Max
}

// newNodebootAgent starts the instance's metadata services and returns the
// agent wired to them as on EC2; eks, when not nil, is its EKS API.
func newNodebootAgent(t *testing.T, bin, k8sBin string, meta instanceMeta, eks *eksAPI) nodebootAgent {
	imdsURL, ec2 := startMetadata(t, meta)
	a := nodebootAgent{bin: bin, ec2: ec2, eks: eks, imdsURL: imdsURL, env: []string{
		"AWS_ENDPOINT_URL=" + ec2.URL,
		// The kubelet and containerd the AMI would have on its PATH.
		"PATH=" + k8sBin + ":" + os.Getenv("PATH"),
	}}
	// The SDK signs with the instance role's credentials from IMDS, as on
	// EC2 (the EC2 stub does not check signatures).
	a.env = append(a.env, nodeAWSEnv(imdsURL, t.TempDir())...)
	if eks != nil {
		a.env = append(a.env, "AWS_ENDPOINT_URL_EKS="+eks.URL)
	}
	return a
}

// assertAgentRefuses runs the agent under a scratch root and checks that
// it fails without writing any kubelet credential or CA.
func assertAgentRefuses(t *testing.T, agent nodeAgent, root string) {
	t.Helper()
	if err := linkHostFacts(root); err != nil {
		t.Fatal(err)
	}
	res, err := agent.render(t.Context(), root)
	if err == nil {
		t.Fatalf("agent accepted a cluster CA that does not match the pinned hash; output:\n%s", res.output)
	}
	t.Logf("agent refused as expected: %v", err)
	for _, p := range []string{bootstrapKubeconfig, kubeletKubeconfig, clusterCAFile, kubeletEnvFile} {
		if _, err := os.Stat(filepath.Join(root, p)); err == nil {
			t.Errorf("agent wrote %s although it refused the CA", p)
		}
	}
}
