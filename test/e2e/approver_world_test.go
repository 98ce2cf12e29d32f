//go:build e2e

package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// The approver world's fixed values: the cluster's VPC and account, and
// another VPC and account whose instances are not the cluster's.
const (
	worldVPC      = "vpc-0a0a0a0a0a0a0a0a0"
	foreignVPC    = "vpc-0f0f0f0f0f0f0f0f0"
	foreignOwner  = "444455556666"
	worldZone     = "us-west-2a"
	approverStart = time.Minute // hang guard for an approver's startup
)

// worldNode is one Node of the approver world, with its credential and
// the EC2 instance behind it.
type worldNode struct {
	name, instanceID, ip, token string
	// vpc and owner place its instance; empty means the cluster's.
	vpc, owner string
	// extraAddresses are added to the Node's status (what a node may
	// write about itself).
	extraAddresses []corev1.NodeAddress
	// noInstance: EC2 knows no instance behind the Node.
	noInstance bool
	// podIPs are secondary private IPs of its primary interface and
	// cniIPs the addresses of a second interface: what the VPC CNI gives
	// its pods, which the Node does not report.
	podIPs, cniIPs []string
}

// approverWorld is a control plane without a kubelet, Node objects created
// by the admin (each with a static-token credential of its own), EC2 and
// EKS stubs that know their instances and the cluster, and the built
// nodeboot-approver, which the tests start with the flags they need.
type approverWorld struct {
	c     *cluster
	env   suiteEnv
	bin   string
	ec2   *awstest.EC2
	eks   *awstest.EKS
	nodes []worldNode
	// transports carry the nodes' requests, each with its own bearer
	// token: a few connection pools rather than one per node (the
	// harness's own TLS handshakes would cost the API server's CPU) or
	// one for all (one HTTP/2 connection's stream limit).
	transports []http.RoundTripper
}

// nodeTransports is the number of connection pools the nodes share.
const nodeTransports = 16

// newWorldNodes returns n nodes 10.1.x.y in the cluster's VPC.
func newWorldNodes(n int) []worldNode {
	out := make([]worldNode, n)
	for i := range out {
		ip := fmt.Sprintf("10.1.%d.%d", i/250, i%250+1)
		out[i] = worldNode{
			name:       ec2PrivateDNSName(net.ParseIP(ip), region),
			instanceID: fmt.Sprintf("i-0%016x", 0xa0000+i),
			ip:         ip,
			token:      randomHex(24),
		}
	}
	return out
}

// startApproverWorld starts the control plane for nodes and registers
// them: Node objects, instances and credentials. No approver runs yet.
func startApproverWorld(t *testing.T, env suiteEnv, nodes []worldNode, controllerManagerArgs ...string) *approverWorld {
	t.Helper()
	w := startUnregisteredApproverWorld(t, env, nodes, controllerManagerArgs...)
	start := time.Now()
	if err := w.register(t.Context(), nodes); err != nil {
		t.Fatal(err)
	}
	t.Logf("registered %d nodes in %s", len(nodes), time.Since(start).Round(time.Millisecond))
	return w
}

// startUnregisteredApproverWorld starts the control plane for nodes, with
// their instances and credentials but no Node objects yet: the nodes join
// later, as kubelets do (the join burst benchmark).
func startUnregisteredApproverWorld(t *testing.T, env suiteEnv, nodes []worldNode, controllerManagerArgs ...string) *approverWorld {
	t.Helper()
	w := &approverWorld{env: env, nodes: nodes, ec2: awstest.NewEC2(t), eks: awstest.NewEKS(t)}
	w.bin = buildBinary(t, env.repo, filepath.Join(env.workDir, "bin"), "./cmd/nodeboot-approver")
	tokens := map[string]string{}
	for _, n := range nodes {
		tokens[n.token] = n.name
		w.addInstance(n)
	}
	w.c = startCluster(t, env, clusterOptions{nodeName: "unused", nodeTokens: tokens, controllerManagerArgs: controllerManagerArgs})
	w.eks.AddCluster(awstest.Cluster{Name: clusterName, VPCID: worldVPC})
	for range nodeTransports {
		tr, err := rest.TransportFor(&rest.Config{Host: w.c.server, TLSClientConfig: rest.TLSClientConfig{CAData: w.c.ca.certPEM}})
		if err != nil {
			t.Fatal(err)
		}
		w.transports = append(w.transports, tr)
	}
	return w
}

// register creates each node's Node object, 32 at a time.
func (w *approverWorld) register(ctx context.Context, nodes []worldNode) error {
	return eachNode(nodes, func(n worldNode) error { return w.createNode(ctx, w.c.admin, n) })
}

// eachNode runs f for every node, 32 at a time, and joins their errors.
func eachNode(nodes []worldNode, f func(worldNode) error) error {
	sem := make(chan struct{}, 32)
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	for i, n := range nodes {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = f(n)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// addInstance makes n's instance known to EC2, unless it has none.
func (w *approverWorld) addInstance(n worldNode) {
	if !n.noInstance {
		w.ec2.AddInstance(awstest.Instance{
			ID: n.instanceID, PrivateDNSName: n.name, AvailabilityZone: worldZone,
			VPCID: cmpOr(n.vpc, worldVPC), OwnerID: cmpOr(n.owner, awstest.DefaultAccountID),
			Interfaces: n.interfaces(),
		})
	}
}

// interfaces are the network interfaces of n's instance: the primary one
// with n's IP and pod IPs, and the CNI's, if n has cniIPs.
func (n worldNode) interfaces() []awstest.NetworkInterface {
	out := []awstest.NetworkInterface{{PrivateIPs: append([]string{n.ip}, n.podIPs...)}}
	if len(n.cniIPs) > 0 {
		out = append(out, awstest.NetworkInterface{PrivateIPs: n.cniIPs})
	}
	return out
}

func cmpOr(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// createNode creates, with cs, the Node object the kubelet and the cloud
// controller manager would: the providerID and the addresses.
func (w *approverWorld) createNode(ctx context.Context, cs kubernetes.Interface, n worldNode) error {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.name},
		Spec:       corev1.NodeSpec{ProviderID: "aws:///" + worldZone + "/" + n.instanceID},
		Status: corev1.NodeStatus{Addresses: append([]corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: n.ip},
			{Type: corev1.NodeHostName, Address: n.name},
			{Type: corev1.NodeInternalDNS, Address: n.name},
		}, n.extraAddresses...)},
	}
	if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create node %s: %w", n.name, err)
	}
	return nil
}

// client returns a client authenticated as node n, without a client-side
// rate limit (each node makes one request).
func (w *approverWorld) client(n worldNode) (kubernetes.Interface, error) {
	h := fnv.New32a()
	h.Write([]byte(n.token))
	tr := w.transports[int(h.Sum32()%uint32(len(w.transports)))]
	return kubernetes.NewForConfig(&rest.Config{Host: w.c.server, BearerToken: n.token, Transport: tr, QPS: -1, Timeout: time.Minute})
}

// awsEnv points the approver's AWS SDK at the stubs, in the region.
func (w *approverWorld) awsEnv() []string {
	return []string{
		"AWS_REGION=" + region, "AWS_DEFAULT_REGION=",
		"AWS_ENDPOINT_URL=", "AWS_ENDPOINT_URL_EC2=" + w.ec2.URL, "AWS_ENDPOINT_URL_EKS=" + w.eks.URL,
		"AWS_ACCESS_KEY_ID=AKIDNODEBOOTE2E", "AWS_SECRET_ACCESS_KEY=nodeboot-e2e",
		"AWS_CONFIG_FILE=/nonexistent", "AWS_SHARED_CREDENTIALS_FILE=/nonexistent",
		"AWS_EC2_METADATA_DISABLED=true", "HTTPS_PROXY=", "HTTP_PROXY=",
	}
}

// noRegionEnv is awsEnv without any region, and no metadata service to
// ask for one.
func (w *approverWorld) noRegionEnv() []string {
	return append(w.awsEnv(), "AWS_REGION=")
}

// startApprover runs nodeboot-approver with args (after the world's
// kubeconfig and local-process flags) and env, and waits until it serves
// /readyz (its informers synced).
func (w *approverWorld) startApprover(t *testing.T, name string, args, env []string) *process {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	argv := append([]string{w.bin, "--kubeconfig=" + w.c.approverKubeconfig, "--leader-elect=false",
		"--metrics-bind-address=0", "--health-probe-bind-address=" + loopback(port), "--log-format=text"}, args...)
	p := w.c.procs.start(t, procSpec{name: name, argv: argv, env: env})
	err = waitUntil(t.Context(), name+" /readyz", approverStart, 100*time.Millisecond, []*process{p},
		func(ctx context.Context) (bool, string, error) {
			return httpOK(ctx, "http://"+loopback(port)+"/readyz")
		})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runApprover runs nodeboot-approver expecting it to exit at once, and
// returns its log and exit error.
func (w *approverWorld) runApprover(t *testing.T, name string, args, env []string) (string, error) {
	t.Helper()
	argv := append([]string{w.bin, "--kubeconfig=" + w.c.approverKubeconfig, "--leader-elect=false",
		"--metrics-bind-address=0", "--health-probe-bind-address=0", "--log-format=text"}, args...)
	p := w.c.procs.start(t, procSpec{name: name, argv: argv, env: env})
	var exitErr error
	err := waitUntil(t.Context(), name+" to exit", approverStart, 50*time.Millisecond, nil,
		func(context.Context) (bool, string, error) {
			ended, err := p.exited()
			exitErr = err
			return ended, "running", nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return p.tail(20), exitErr
}

// servingCSR is a kubelet serving CSR node n asks for with key (its
// subject extras included), SANs dns and ips.
func servingCSR(n worldNode, key csrKey, dns []string, ips []net.IP) (*certificatesv1.CertificateSigningRequest, error) {
	req, err := csrPEM(key, "system:node:"+n.name, dns, ips)
	if err != nil {
		return nil, err
	}
	return &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "csr-" + strings.TrimSuffix(n.name, ".us-west-2.compute.internal") + "-"},
		Spec:       certificatesv1.CertificateSigningRequestSpec{Request: req, SignerName: certificatesv1.KubeletServingSignerName, Usages: servingUsages},
	}, nil
}

// honestSANs are the SANs a kubelet of n asks for.
func honestSANs(n worldNode) ([]string, []net.IP) {
	return []string{n.name}, []net.IP{net.ParseIP(n.ip)}
}

// decision waits for the Approved or Denied condition of CSR name.
func (w *approverWorld) decision(ctx context.Context, name string, approver *process) (certificatesv1.CertificateSigningRequestCondition, error) {
	return waitDecision(ctx, w.c.admin, name, time.Minute, approver)
}

// randomHex returns n random bytes in hex: a static token.
func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
