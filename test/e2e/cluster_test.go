//go:build e2e

package e2e

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Fixed cluster parameters. The service CIDR is what the user data's
// cluster.cidr says, so the rendered clusterDNS is 10.96.0.10.
const (
	clusterName    = "nodeboot-e2e"
	serviceCIDR    = "10.96.0.0/12"
	kubernetesSvc  = "10.96.0.1"
	approverUser   = "nodeboot-approver"
	controllerUser = "system:kube-controller-manager"
	// approverNodeWait is nodeboot-approver's --node-wait.
	approverNodeWait = 3 * time.Second
)

// clusterOptions are the node-independent inputs of the control plane.
type clusterOptions struct {
	// nodeName is the one node this cluster expects.
	nodeName string
	// identity, when set, runs EKS's authenticator as the API server's
	// token webhook against it (the rollout suite joins no real kubelet).
	identity *awsIdentity
	// approverBin is the nodeboot-approver binary; empty runs no approver
	// (the rollout suite joins no real kubelet).
	approverBin string
	// approverPolicy are extra nodeboot-approver flags (operator policy).
	approverPolicy []string
	// controllerManagerArgs are extra kube-controller-manager flags.
	controllerManagerArgs []string
	// approverEnv is added to nodeboot-approver's environment (its AWS
	// SDK configuration).
	approverEnv []string
	// nodeTokens adds node identities to the static token file: token →
	// node name (user system:node:<name> in system:nodes).
	nodeTokens map[string]string
}

// cluster is a running loopback control plane: etcd, kube-apiserver,
// kube-controller-manager (signer, bootstrapsigner, SA controllers) and
// nodeboot-approver.
type cluster struct {
	dir     string
	procs   *processGroup
	ca      *certAuthority
	server  string // https://127.0.0.1:<port>
	apiPort int
	admin   kubernetes.Interface
	// adminKubeconfig is a kubeconfig file for kubectl debugging;
	// approverKubeconfig authenticates as nodeboot-approver.
	adminKubeconfig, approverKubeconfig string
	// identity is EKS's identity path (nil without a real kubelet), and
	// authenticator the authenticator process serving it.
	identity      *awsIdentity
	authenticator *authenticator
	// bootstrapToken is a kubeadm-style bootstrap token "<id>.<secret>".
	bootstrapToken string
	nodeName       string
	approver       *process
	apiserver      *process
	// approverArgv starts nodeboot-approver (again, after a test stopped it).
	approverArgv []string
	// approverEnv is the environment it starts with.
	approverEnv []string
	timings     map[string]time.Duration
}

// startCluster starts the control plane under env.workDir/cluster and
// registers its teardown. It fails the test if any component does not
// become ready.
func startCluster(t *testing.T, env suiteEnv, opts clusterOptions) *cluster {
	t.Helper()
	ctx := t.Context()
	dir := filepath.Join(env.workDir, "cluster")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"pki", "logs", "etcd"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	c := &cluster{
		dir:            dir,
		procs:          &processGroup{logDir: filepath.Join(dir, "logs")},
		nodeName:       opts.nodeName,
		identity:       opts.identity,
		bootstrapToken: newBootstrapToken(),
		timings:        map[string]time.Duration{},
	}
	t.Cleanup(func() { c.teardown(t, env.keep) })

	start := time.Now()
	pki := c.writePKI(t, opts.nodeTokens)
	c.timings["pki"] = time.Since(start)

	if c.identity != nil {
		c.authenticator = prepareAuthenticator(t, env, filepath.Join(dir, "authenticator"))
	}
	etcdURL := c.startEtcd(t, env)
	c.timings["etcd"] = time.Since(start)
	c.startAPIServer(t, env, pki, etcdURL)
	c.timings["apiserver"] = time.Since(start)

	if err := applyClusterObjects(ctx, c.admin, clusterObjects{
		server:         c.server,
		caPEM:          c.ca.certPEM,
		bootstrapToken: c.bootstrapToken,
		approverUser:   approverUser,
	}); err != nil {
		t.Fatalf("cluster objects: %v", err)
	}
	if c.identity != nil {
		if err := applyAWSAuth(ctx, c.admin, awsAuthRoles()); err != nil {
			t.Fatal(err)
		}
		c.authenticator.start(t, c, c.identity, pki.authenticatorKubeconfig)
	}
	c.startControllerManager(t, env, pki, opts.controllerManagerArgs)
	if opts.approverBin != "" {
		c.startApprover(t, opts.approverBin, opts.approverPolicy, opts.approverEnv, pki)
	}
	if err := waitUntil(ctx, "kube-controller-manager: default ServiceAccount and signed cluster-info", time.Minute, 200*time.Millisecond,
		c.procs.procs, func(ctx context.Context) (bool, string, error) {
			return controllerManagerReady(ctx, c.admin, tokenID(c.bootstrapToken))
		}); err != nil {
		t.Fatal(err)
	}
	c.timings["ready"] = time.Since(start)
	t.Logf("control plane ready in %s at %s (admin kubeconfig %s)", c.timings["ready"].Round(time.Millisecond), c.server, c.adminKubeconfig)
	return c
}

// pkiFiles are the paths of the control plane's certificates and keys.
type pkiFiles struct {
	caCert, caKey                       string
	apiserverCert, apiserverKey         string
	kubeletClientCert, kubeletClientKey string
	saKey, saPub                        string
	controllerKubeconfig                string
	approverKubeconfig                  string
	// authenticatorKubeconfig is the authenticator's own client identity.
	authenticatorKubeconfig []byte
	// tokenFile holds the static node tokens, when a test asks for some.
	tokenFile string
}

func (c *cluster) writePKI(t *testing.T, nodeTokens map[string]string) pkiFiles {
	t.Helper()
	dir := filepath.Join(c.dir, "pki")
	ca, err := newCA("nodeboot-e2e-ca")
	if err != nil {
		t.Fatal(err)
	}
	c.ca = ca
	var f pkiFiles
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	f.caCert, f.caKey, err = writePair(dir, "ca", keyPair{certPEM: ca.certPEM, keyPEM: ca.keyPEM})
	must(err)

	apiPort, err := freePort()
	must(err)
	c.apiPort = apiPort
	c.server = "https://" + loopback(apiPort)

	issue := func(name string, spec certSpec) (string, string, keyPair) {
		t.Helper()
		kp, err := ca.issue(spec)
		must(err)
		cert, key, err := writePair(dir, name, kp)
		must(err)
		return cert, key, kp
	}
	f.apiserverCert, f.apiserverKey, _ = issue("apiserver", certSpec{
		commonName: "kube-apiserver",
		dnsNames:   []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
		ips:        []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP(kubernetesSvc)},
		usages:     []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	f.kubeletClientCert, f.kubeletClientKey, _ = issue("apiserver-kubelet-client", certSpec{
		commonName: "kube-apiserver-kubelet-client", orgs: []string{"system:masters"},
		usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	_, _, adminKP := issue("admin", certSpec{
		commonName: "kubernetes-admin", orgs: []string{"system:masters"},
		usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	_, _, kcmKP := issue("controller-manager", certSpec{
		commonName: controllerUser, usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	_, _, approverKP := issue("approver", certSpec{
		commonName: approverUser, usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	_, _, authenticatorKP := issue("authenticator", certSpec{
		commonName: authenticatorUser, usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})

	// Service-account signing key: an ECDSA pair is enough (ES256).
	_, saKeyPEM, err := newKey()
	must(err)
	saPub, err := publicKeyPEM(saKeyPEM)
	must(err)
	f.saKey, f.saPub = filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub")
	must(os.WriteFile(f.saKey, saKeyPEM, 0o600))
	must(os.WriteFile(f.saPub, saPub, 0o644))

	// Static tokens for the node identities a test asks for (the approver's
	// burst: a thousand nodes without a thousand IAM roles).
	if len(nodeTokens) > 0 {
		f.tokenFile = filepath.Join(dir, "tokens.csv")
		var lines strings.Builder
		for token, node := range nodeTokens {
			fmt.Fprintf(&lines, "%s,system:node:%s,node-%s,\"system:nodes\"\n", token, node, node)
		}
		must(os.WriteFile(f.tokenFile, []byte(lines.String()), 0o600))
	}

	writeKubeconfig := func(name, user string, kp keyPair) string {
		t.Helper()
		data, err := kubeconfigBytes(c.server, ca.certPEM, user, credentials{certPEM: kp.certPEM, keyPEM: kp.keyPEM})
		must(err)
		path := filepath.Join(c.dir, name+".kubeconfig")
		must(os.WriteFile(path, data, 0o600))
		return path
	}
	c.adminKubeconfig = writeKubeconfig("admin", "kubernetes-admin", adminKP)
	f.controllerKubeconfig = writeKubeconfig("controller-manager", controllerUser, kcmKP)
	f.approverKubeconfig = writeKubeconfig("approver", approverUser, approverKP)
	c.approverKubeconfig = f.approverKubeconfig
	f.authenticatorKubeconfig, err = kubeconfigBytes(c.server, ca.certPEM, authenticatorUser,
		credentials{certPEM: authenticatorKP.certPEM, keyPEM: authenticatorKP.keyPEM})
	must(err)

	c.admin, err = kubernetes.NewForConfig(restConfig(c.server, ca.certPEM, credentials{certPEM: adminKP.certPEM, keyPEM: adminKP.keyPEM}))
	must(err)
	return f
}

func (c *cluster) startEtcd(t *testing.T, env suiteEnv) string {
	t.Helper()
	var urls [3]string // client, peer, metrics
	for i := range urls {
		p, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		urls[i] = "http://" + loopback(p)
	}
	etcd := c.procs.start(t, procSpec{name: "etcd", argv: []string{
		env.k8s("etcd"), "--name=e2e", "--data-dir=" + filepath.Join(c.dir, "etcd"),
		"--listen-client-urls=" + urls[0], "--advertise-client-urls=" + urls[0],
		"--listen-peer-urls=" + urls[1], "--initial-advertise-peer-urls=" + urls[1],
		"--initial-cluster=e2e=" + urls[1], "--listen-metrics-urls=" + urls[2],
		"--unsafe-no-fsync", // test data only; keeps the shared disk quiet
	}})
	err := waitUntil(t.Context(), "etcd /health", 30*time.Second, 100*time.Millisecond, []*process{etcd},
		func(ctx context.Context) (bool, string, error) { return httpOK(ctx, urls[0]+"/health") })
	if err != nil {
		t.Fatal(err)
	}
	return urls[0]
}

func (c *cluster) startAPIServer(t *testing.T, env suiteEnv, f pkiFiles, etcdURL string) {
	t.Helper()
	var webhook []string
	if c.authenticator != nil {
		// EKS's token authentication: every bearer token that is not a
		// bootstrap or service-account token goes to the authenticator.
		webhook = []string{"--authentication-token-webhook-config-file=" + c.authenticator.webhookKubeconfig}
	}
	if f.tokenFile != "" {
		webhook = append(webhook, "--token-auth-file="+f.tokenFile)
	}
	c.apiserver = c.procs.start(t, procSpec{name: "kube-apiserver", argv: append([]string{
		env.k8s("kube-apiserver"),
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", c.apiPort),
		"--etcd-servers=" + etcdURL,
		"--tls-cert-file=" + f.apiserverCert, "--tls-private-key-file=" + f.apiserverKey,
		"--client-ca-file=" + f.caCert,
		"--kubelet-client-certificate=" + f.kubeletClientCert, "--kubelet-client-key=" + f.kubeletClientKey,
		// Verify the kubelet's serving certificate (issued through the
		// approver) and dial the node by its name, which /etc/hosts maps
		// to the loopback address the kubelet listens on.
		"--kubelet-certificate-authority=" + f.caCert,
		"--kubelet-preferred-address-types=Hostname,InternalIP",
		"--service-account-key-file=" + f.saPub, "--service-account-signing-key-file=" + f.saKey,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-cluster-ip-range=" + serviceCIDR,
		"--authorization-mode=Node,RBAC",
		"--enable-admission-plugins=NodeRestriction",
		"--enable-bootstrap-token-auth=true",
		"--anonymous-auth=true", // kube-public/cluster-info discovery is anonymous
		"--endpoint-reconciler-type=none",
		"--profiling=false",
	}, webhook...)})
	err := waitUntil(t.Context(), "kube-apiserver /readyz", time.Minute, 200*time.Millisecond, []*process{c.apiserver},
		func(ctx context.Context) (bool, string, error) {
			body, err := c.admin.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
			if err != nil {
				return false, err.Error(), nil
			}
			return string(body) == "ok", string(body), nil
		})
	if err != nil {
		t.Fatal(err)
	}
}

func (c *cluster) startControllerManager(t *testing.T, env suiteEnv, f pkiFiles, extra []string) {
	t.Helper()
	c.procs.start(t, procSpec{name: "kube-controller-manager", argv: append([]string{
		env.k8s("kube-controller-manager"),
		"--kubeconfig=" + f.controllerKubeconfig,
		"--secure-port=0",
		"--leader-elect=false",
		"--cluster-signing-cert-file=" + f.caCert, "--cluster-signing-key-file=" + f.caKey,
		"--root-ca-file=" + f.caCert,
		"--service-account-private-key-file=" + f.saKey,
		"--use-service-account-credentials=true",
		"--controllers=*,bootstrapsigner,tokencleaner",
		"--profiling=false",
	}, extra...)})
}

func (c *cluster) startApprover(t *testing.T, bin string, policy, env []string, f pkiFiles) {
	t.Helper()
	argv := []string{
		bin,
		"--kubeconfig=" + f.approverKubeconfig,
		"--leader-elect=false",
		"--metrics-bind-address=0",
		"--health-probe-bind-address=127.0.0.1:0",
		"--log-format=text",
		"--log-level=debug",
		// Deny a CSR whose SANs the Node does not report after this long
		// (the default waits minutes for a cloud controller to add them).
		"--node-wait=" + approverNodeWait.String(),
	}
	c.approverArgv = append(argv, policy...)
	c.approverEnv = env
	c.approver = c.procs.start(t, procSpec{name: "nodeboot-approver", argv: c.approverArgv, env: env})
}

// teardown stops every component by PID, prints logs when the test
// failed and removes the cluster directory unless the run failed or keep.
func (c *cluster) teardown(t *testing.T, keep bool) {
	if t.Failed() {
		c.procs.dumpLogs(t, 40)
	}
	c.procs.stopAll(t, 10*time.Second)
	if t.Failed() || keep {
		t.Logf("cluster files kept in %s", c.dir)
		return
	}
	if err := os.RemoveAll(c.dir); err != nil {
		t.Errorf("remove %s: %v", c.dir, err)
	}
}

// controllerManagerReady reports whether KCM's controllers have run: the
// default ServiceAccount exists (pods need it) and bootstrapsigner signed
// cluster-info for the bootstrap token.
func controllerManagerReady(ctx context.Context, admin kubernetes.Interface, tokenID string) (bool, string, error) {
	if _, err := admin.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{}); err != nil {
		return false, "default ServiceAccount: " + err.Error(), nil
	}
	cm, err := admin.CoreV1().ConfigMaps(kubePublic).Get(ctx, clusterInfoName, metav1.GetOptions{})
	if err != nil {
		return false, "cluster-info: " + err.Error(), nil
	}
	if _, ok := cm.Data[jwsKeyPrefix+tokenID]; !ok {
		return false, "cluster-info not signed yet", nil
	}
	return true, "", nil
}

func httpOK(ctx context.Context, url string) (bool, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false, err.Error(), nil
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK, resp.Status, nil
}

// newBootstrapToken returns a random token matching [a-z0-9]{6}.[a-z0-9]{16}.
func newBootstrapToken() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 22)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b[:6]) + "." + string(b[6:])
}

func tokenID(token string) string     { id, _, _ := strings.Cut(token, "."); return id }
func tokenSecret(token string) string { _, s, _ := strings.Cut(token, "."); return s }

// publicKeyPEM returns the PKIX public key PEM of a PKCS#8 private key PEM.
func publicKeyPEM(keyPEM []byte) ([]byte, error) {
	block, _ := pem.Decode(keyPEM)
	if block == nil {
		return nil, fmt.Errorf("no PEM key")
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("parse key: %w", err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("key %T cannot sign", key)
	}
	der, err := x509.MarshalPKIXPublicKey(signer.Public())
	if err != nil {
		return nil, fmt.Errorf("marshal public key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}
