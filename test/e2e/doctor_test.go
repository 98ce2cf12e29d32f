//go:build e2e

package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeboot/nodeboot/internal/node/bundle"
	"github.com/nodeboot/nodeboot/internal/node/doctor"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
	"github.com/nodeboot/nodeboot/internal/testing/nodetest"
	"github.com/nodeboot/nodeboot/internal/testing/pkitest"
	"github.com/nodeboot/nodeboot/internal/testing/proxytest"
)

// supportDir is where the bundle goes on the node, under /var/log (which
// the kubelet serves at /logs/).
const supportDir = "/var/log/support"

// checkOrder is the order doctor reports its checks in.
var checkOrder = doctor.CheckOrder

// nodeEnv is the environment of a command an operator runs on the node:
// the instance's metadata and EC2 endpoints, and the AMI's PATH (Debian's
// `aws` in /usr/bin, as the kubelet has it) with the Kubernetes binaries.
func nodeEnv(env suiteEnv, a nodebootAgent) []string {
	return append(append(os.Environ(), a.env...), "PATH="+env.k8sBin+":"+amiPATH)
}

// doctorEnv is nodeEnv with an EKS API that knows the cluster and its
// security group (the agent's own, when it has one), for the doctor's
// security group check.
func doctorEnv(t *testing.T, suite suiteEnv, a nodebootAgent, c *cluster) []string {
	env := nodeEnv(suite, a)
	if a.eks != nil {
		return env
	}
	eks := awstest.NewEKS(t)
	eks.AddCluster(awstest.Cluster{Name: clusterName, Endpoint: c.server, CA: c.ca.certPEM, ServiceIPv4CIDR: serviceCIDR,
		IPFamily: "ipv4", Version: "1.34", ClusterSecurityGroupID: e2eClusterSG})
	return append(env, "AWS_ENDPOINT_URL_EKS="+eks.URL)
}

// assertSecurityGroupBlocks takes the kubelet's port out of the node's
// security group (the cluster group may still reach 443): the doctor must
// fail the kubelet port check, every check before it passing.
func assertSecurityGroupBlocks(t *testing.T, a nodebootAgent, bin string, env []string) {
	a.ec2.AddSecurityGroup(nodeSecurityGroup(false))
	defer a.ec2.AddSecurityGroup(nodeSecurityGroup(true))
	rep, code, _ := runDoctor(t, bin, env)
	assertBrokenReport(t, rep, code, doctor.CheckKubeletPort, []string{"the control plane cannot reach the kubelet", e2eNodeSG, e2eClusterSG, "TCP 10250"})
	if c, _ := rep.Check(doctor.CheckKubeletPort); !strings.Contains(c.Action, "authorize-security-group-ingress --group-id "+e2eNodeSG) {
		t.Errorf("action %q", c.Action)
	}
}

// runNodeboot runs the agent binary with args and returns its exit code,
// output and wall time.
func runNodeboot(ctx context.Context, bin string, env []string, args ...string) (code int, stdout, stderr string, took time.Duration, err error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err = cmd.Run()
	took = time.Since(start)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), out.String(), errb.String(), took, nil
	}
	return 0, out.String(), errb.String(), took, err
}

// runDoctor runs `nodeboot doctor -o json` on the node and decodes it.
func runDoctor(t *testing.T, bin string, env []string) (doctor.Report, int, time.Duration) {
	t.Helper()
	code, stdout, stderr, took, err := runNodeboot(t.Context(), bin, env, "doctor", "-o", "json", "--root", "/")
	if err != nil {
		t.Fatal(err)
	}
	var rep doctor.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("doctor output is not a report (exit %d): %v\n%s\n%s", code, err, stdout, stderr)
	}
	if got := reportOrder(rep); !slices.Equal(got, checkOrder) {
		t.Errorf("checks in order %v, want %v", got, checkOrder)
	}
	t.Logf("nodeboot doctor exited %d in %s:\n%s", code, took.Round(time.Millisecond), textOf(rep))
	return rep, code, took
}

func reportOrder(rep doctor.Report) []string {
	var ids []string
	for _, c := range rep.Checks {
		ids = append(ids, c.ID)
	}
	return ids
}

// textOf renders a report as the doctor prints it.
func textOf(rep doctor.Report) string { return string(rep.Text()) }

// exposeLogs links the kubelet's and containerd's logs where a node
// without a journal keeps them (/var/log/<service>.log, the paths the
// kubelet's own log query reads), until the test ends.
func exposeLogs(t *testing.T, n *node) {
	t.Helper()
	for name, p := range map[string]*process{"kubelet": n.kubelet, "containerd": n.containerd} {
		link := "/var/log/" + name + ".log"
		if _, err := os.Lstat(link); err == nil {
			t.Fatalf("%s already exists on this machine", link)
		}
		if err := os.Symlink(p.logPath, link); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Remove(link) })
	}
}

// removeSupportDir removes the bundle directory when the test ends (it
// did not exist before: /var/log is watched for leaks).
func removeSupportDir(t *testing.T) {
	t.Helper()
	if _, err := os.Lstat(supportDir); err == nil {
		t.Fatalf("%s already exists on this machine", supportDir)
	}
	t.Cleanup(func() { _ = os.RemoveAll(supportDir) })
}

// assertHealthyDoctor checks that every check of a joined node is ok and
// records how long the doctor took.
func assertHealthyDoctor(t *testing.T, bin string, env []string, sr *scenarioReport) {
	rep, code, took := runDoctor(t, bin, env)
	sr.timing("doctor", took)
	for _, c := range rep.Checks {
		if c.Verdict != doctor.OK {
			t.Errorf("%s: %s: %s\n%s", c.ID, c.Verdict, c.Summary, strings.Join(c.Evidence, "\n"))
		}
	}
	if code != 0 || !rep.Healthy() {
		t.Errorf("doctor exited %d on a healthy node", code)
	}
}

// assertSupportBundle writes the bundle on the node, fetches it through
// the API server's node proxy as a cluster client would, and checks its
// manifest and that no secret of the node is in it.
func assertSupportBundle(t *testing.T, c *cluster, nodeName, bin string, env []string, secrets map[string]string) {
	removeSupportDir(t)
	code, stdout, stderr, took, err := runNodeboot(t.Context(), bin, env, "bundle", "--since", "1h")
	if err != nil || code != 0 {
		t.Fatalf("nodeboot bundle: exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	t.Logf("nodeboot bundle in %s: %s", took.Round(time.Millisecond), strings.TrimSpace(stdout))
	path := "/api/v1/nodes/" + nodeName + "/proxy/logs/support/" + filepath.Base(bundle.DefaultPath)
	var status int
	res := c.admin.CoreV1().RESTClient().Get().AbsPath(path).Do(t.Context()).StatusCode(&status)
	data, err := res.Raw()
	if err != nil {
		t.Fatalf("GET %s: HTTP %d: %v; body %q", path, status, err, data[:min(len(data), 300)])
	}
	onDisk, err := os.ReadFile(bundle.DefaultPath)
	if err != nil || !bytes.Equal(onDisk, data) {
		t.Fatalf("the bundle fetched through the API server (%d bytes) is not the one on the node: %v", len(data), err)
	}
	tarStream, files := unpackBundle(t, data)
	t.Logf("fetched %s through the API server: %d bytes, %d files", path, len(data), len(files))
	m := assertManifest(t, files, nodeName)
	assertNoSecrets(t, tarStream, files, secrets)
	var rep doctor.Report
	if err := json.Unmarshal(files["nodeboot-logs/doctor/report.json"], &rep); err != nil || rep.Node != nodeName || len(rep.Checks) != len(checkOrder) {
		t.Errorf("doctor report in the bundle: %+v, %v", rep, err)
	}
	if !strings.Contains(m.Logs, "no systemd journal") {
		t.Errorf("manifest says logs came from %q; this host has no journal", m.Logs)
	}
}

// unpackBundle returns the uncompressed tar stream and every entry.
func unpackBundle(t *testing.T, data []byte) ([]byte, map[string][]byte) {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	stream, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	tr := tar.NewReader(bytes.NewReader(stream))
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return stream, files
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[hdr.Name] = b
	}
}

// assertManifest checks that the manifest describes the archive: every
// written item is there with its size, and the items a joined node must
// have are present and not empty.
func assertManifest(t *testing.T, files map[string][]byte, nodeName string) bundle.Manifest {
	t.Helper()
	var m bundle.Manifest
	if err := json.Unmarshal(files["nodeboot-logs/manifest.json"], &m); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	if m.Node != nodeName || m.Limits.CommandTimeout != "1m0s" || m.Limits.RunTimeout != "10m0s" || m.Root != "/" {
		t.Errorf("manifest header: node %q, limits %+v, root %q", m.Node, m.Limits, m.Root)
	}
	written := map[string]bundle.Item{}
	commands := 0
	for _, it := range m.Items {
		if it.Name == "" {
			continue
		}
		written[it.Name] = it
		if got := len(files[it.Name]); got != it.Size {
			t.Errorf("%s: manifest says %d bytes, the archive holds %d", it.Name, it.Size, got)
		}
		if it.Command != "" {
			commands++
			if it.ExitCode == nil {
				t.Errorf("%s: command %q without exit code", it.Name, it.Command)
			}
		}
	}
	for _, name := range []string{"doctor/report.txt", "doctor/report.json", "logs/var/log/kubelet.log", "logs/var/log/containerd.log",
		"config/etc/eks/kubelet/environment", "config/etc/kubernetes/kubelet/config.json", "config/etc/kubernetes/pki/ca.crt",
		"config/etc/containerd/config.toml", "config/var/lib/kubelet/pki/kubelet-server-current.crt.txt", "userdata/01-",
		"system/os-release", "system/cgroup-version.txt", "system/sysctls.txt", "system/mounts", "system/ip-route.txt", "runtime/ctr-containers.txt"} {
		full := "nodeboot-logs/" + name
		if name == "system/os-release" {
			full = "nodeboot-logs/system/etc/os-release"
		}
		if name == "system/mounts" {
			full = "nodeboot-logs/system/proc/mounts"
		}
		if strings.HasSuffix(full, "-") { // the first user-data document, whatever its format
			for n := range written {
				if strings.HasPrefix(n, full) {
					full = n
				}
			}
		}
		if it, ok := written[full]; !ok || it.Size == 0 {
			t.Errorf("bundle lacks %s (or it is empty): %+v", name, it)
		}
	}
	if commands == 0 {
		t.Error("no command output in the bundle")
	}
	var reds []bundle.Redaction
	if err := json.Unmarshal(files["nodeboot-logs/redactions.json"], &reds); err != nil {
		t.Errorf("redactions.json: %v", err)
	}
	t.Logf("manifest: %d items, %d written, %d commands, %d redactions", len(m.Items), len(written), commands, len(reds))
	return m
}

// assertNoSecrets greps the whole archive (the tar stream and every
// entry) for each secret and for any private key.
func assertNoSecrets(t *testing.T, stream []byte, files map[string][]byte, secrets map[string]string) {
	t.Helper()
	// A PEM private key whose body was not masked, and an EKS token (a
	// presigned STS URL in base64url) that was not.
	privateKeyBody := regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----\s*[A-Za-z0-9+/=]{16}`)
	eksToken := regexp.MustCompile(`k8s-aws-v1\.[A-Za-z0-9_-]{40}`)
	for what, s := range secrets {
		if s == "" {
			t.Fatalf("secret %q is empty: the check would prove nothing", what)
		}
		if bytes.Contains(stream, []byte(s)) {
			for name, data := range files {
				if bytes.Contains(data, []byte(s)) {
					t.Errorf("%s holds a copy of %s", name, what)
				}
			}
		}
	}
	if privateKeyBody.Match(stream) {
		t.Errorf("the archive holds a private key: %s", privateKeyBody.Find(stream))
	}
	if eksToken.Match(stream) {
		t.Errorf("the archive holds an EKS token: %.24s…", eksToken.Find(stream))
	}
}

// nodeKeySecrets returns a base64 line of every private key the kubelet
// holds on this node, each a secret the bundle must not copy.
func nodeKeySecrets(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	paths, _ := filepath.Glob(filepath.Join(kubeletPKIDir, "*.pem"))
	for _, p := range paths {
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink != 0 {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for {
			var b *pem.Block
			b, data = pem.Decode(data)
			if b == nil {
				break
			}
			if strings.HasSuffix(b.Type, "PRIVATE KEY") {
				body := strings.Split(string(pem.EncodeToMemory(b)), "\n")[1]
				out["private key of "+p] = body
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no private key under %s to look for", kubeletPKIDir)
	}
	return out
}

// bundleSecrets are the secrets of a joined node: the bootstrap token (in
// the user data and bootstrap kubeconfig of that scenario), the instance
// role's secret key and session token (which sign the exec credential),
// and the kubelet's private keys. An exec credential itself is looked for
// by its form (assertNoSecrets).
func bundleSecrets(t *testing.T, c *cluster, instanceID string) map[string]string {
	t.Helper()
	s := nodeKeySecrets(t)
	s["bootstrap token"] = c.bootstrapToken
	s["bootstrap token secret"] = tokenSecret(c.bootstrapToken)
	role := c.identity.session(instanceID)
	s["instance role secret key"] = role.SecretAccessKey
	s["instance role session token"] = role.SessionToken
	return s
}

// fingerprint is a certificate's SHA-256 as openssl prints it, computed
// here independently of the doctor's own.
func fingerprint(c *x509.Certificate) string {
	sum := sha256.Sum256(c.Raw)
	h := strings.ToUpper(hex.EncodeToString(sum[:]))
	var parts []string
	for i := 0; i < len(h); i += 2 {
		parts = append(parts, h[i:i+2])
	}
	return strings.Join(parts, ":")
}

// brokenJoin is a join broken on purpose in one way, and what the doctor
// must say about it.
type brokenJoin struct {
	name string
	// userData changes the user data; role is the instance's IAM role
	// (the node role when empty); nodeName is the name the instance's own
	// EC2 view reports, and so the name the kubelet registers under (the
	// real one when empty; the control plane's EC2 view, which the
	// authenticator renders {{EC2PrivateDNSName}} from, always says the
	// real one); stopApprover stops nodeboot-approver for the join.
	userData     func(*userDataInput)
	role         string
	nodeName     string
	stopApprover bool
	// proxy, when set, puts the kubelet behind a proxy behaving so, set in
	// an operator's drop-in of kubelet.service (through EnvironmentFile=
	// with proxyFile, as AWS's proxy guide does), and addresses the API
	// server by a name (loopback is never proxied).
	proxy     *proxytest.Options
	proxyFile bool
	// check must fail with a summary holding every want; the checks
	// before it must be ok.
	check string
	want  func(c *cluster, n *node) []string
}

// brokenInstance is the instance every broken join runs as.
const brokenInstance = "i-0e2e0000000000bad"

// nodeEntryYAML is aws-auth's entry for a node role, as EKS documents it
// (written out here, independently of the doctor's own rendering).
func nodeEntryYAML(role string) string {
	return "- rolearn: " + roleARN(role) + "\n  username: system:node:{{EC2PrivateDNSName}}\n  groups:\n    - system:bootstrappers\n    - system:nodes"
}

// accessEntryCommand is the equivalent EKS access entry.
func accessEntryCommand(role string) string {
	return "aws eks create-access-entry --cluster-name " + clusterName + " --principal-arn " + roleARN(role) + " --type EC2_LINUX --region " + region
}

// brokenJoins breaks a real join in seven ways, one at a time, on the
// running control plane.
func brokenJoins(t *testing.T, env suiteEnv, c *cluster, host hostInfo, nodeName, agentBin string) {
	wrongCA, err := newCA("not-the-cluster-ca")
	if err != nil {
		t.Fatal(err)
	}
	apiserverCert := readCert(t, filepath.Join(c.dir, "pki", "apiserver.crt"))
	closedPort := nodetest.ClosedPort(t)
	const otherName = "ip-10-99-0-1.us-west-2.compute.internal"
	cases := []brokenJoin{
		{name: "wrong-ca", userData: func(in *userDataInput) { in.CAPEM = wrongCA.certPEM }, check: doctor.CheckEndpoint,
			want: func(*cluster, *node) []string {
				return []string{"wrong CA", "is not signed by the configured cluster CA", fingerprint(wrongCA.cert), fingerprint(apiserverCert)}
			}},
		{name: "wrong-endpoint-port", userData: func(in *userDataInput) { in.Server = "https://" + loopback(closedPort) }, check: doctor.CheckEndpoint,
			want: func(*cluster, *node) []string {
				return []string{fmt.Sprintf("TCP connect to %s refused: nothing listens on port %d", loopback(closedPort), closedPort)}
			}},
		{name: "unmapped-role", role: unmappedRole, check: doctor.CheckIdentity,
			want: func(*cluster, *node) []string {
				return []string{"the API server rejected the kubelet's credential (401 Unauthorized)",
					"instance role " + roleARN(unmappedRole), nodeEntryYAML(unmappedRole), accessEntryCommand(unmappedRole)}
			}},
		{name: "wrong-username-template", role: sessionNameRole, check: doctor.CheckIdentity,
			want: func(*cluster, *node) []string {
				return []string{"name mismatch: the credential is system:node:" + brokenInstance + " but the kubelet registers as " + nodeName,
					"instance role " + roleARN(sessionNameRole), "username must be system:node:{{EC2PrivateDNSName}}",
					nodeEntryYAML(sessionNameRole), accessEntryCommand(sessionNameRole)}
			}},
		{name: "missing-nodes-group", role: noGroupsRole, check: doctor.CheckIdentity,
			want: func(*cluster, *node) []string {
				return []string{"system:node:" + nodeName + " is not in the group system:nodes",
					"instance role " + roleARN(noGroupsRole), nodeEntryYAML(noGroupsRole), accessEntryCommand(noGroupsRole)}
			}},
		{name: "node-name-differs-from-identity", nodeName: otherName, check: doctor.CheckIdentity,
			want: func(*cluster, *node) []string {
				return []string{"name mismatch: the credential is system:node:" + nodeName + " but the kubelet registers as " + otherName}
			}},
		{name: "approver-stopped", stopApprover: true, check: doctor.CheckServingCert,
			want: func(_ *cluster, n *node) []string {
				return []string{"CSR " + n.tl.servingCSRName() + " has been pending for", "no approver has decided it"}
			}},
		{name: "proxy-refuses-connect", proxy: &proxytest.Options{Status: http.StatusForbidden}, check: doctor.CheckEndpoint,
			want: func(c *cluster, _ *node) []string {
				return []string{"proxy failure", fmt.Sprintf("refuses CONNECT to %s:%d (403 Forbidden)", proxiedAPIName, c.apiPort), "/etc/systemd/system/kubelet.service.d/"}
			}},
		{name: "tls-inspecting-proxy", proxy: &proxytest.Options{Inspect: pkitest.NewCA(t, "corporate-inspection-ca"),
			InspectNames: pkitest.Spec{CN: proxiedAPIName, DNS: []string{proxiedAPIName}}}, proxyFile: true, check: doctor.CheckEndpoint,
			want: func(*cluster, *node) []string {
				return []string{"TLS inspection", "CN=corporate-inspection-ca", proxyEnvFile + " (EnvironmentFile= in"}
			}},
	}
	for _, bj := range cases {
		t.Run(bj.name, func(t *testing.T) { runBrokenJoin(t, env, c, host, nodeName, agentBin, bj) })
	}
}

// proxiedAPIName is the API server's name behind a proxy: its certificate
// names it, and only the proxy resolves it (to loopback).
const proxiedAPIName = "kubernetes.default.svc"

// Where the proxy broken joins put the kubelet's proxy.
const (
	proxyDropIn  = "/etc/systemd/system/kubelet.service.d/90-nodeboot-e2e-proxy.conf"
	proxyEnvFile = "/etc/systemd/nodeboot-e2e-proxy.env"
)

// behindProxy starts a proxy and sets it in an operator's drop-in of
// kubelet.service (or in the file its EnvironmentFile= names); it returns
// the API server's URL through it and what removes the files.
func behindProxy(t *testing.T, c *cluster, opts proxytest.Options, viaFile bool) (string, func()) {
	opts.Hosts = map[string]string{proxiedAPIName: "127.0.0.1"}
	p := proxytest.Start(t, opts)
	vars := "HTTPS_PROXY=" + p.URL + "\nNO_PROXY=169.254.169.254,localhost,127.0.0.1\n"
	dropIn := "[Service]\nEnvironment=\"HTTPS_PROXY=" + p.URL + "\" \"NO_PROXY=169.254.169.254,localhost,127.0.0.1\"\n"
	var removes []func()
	if viaFile {
		dropIn = "[Service]\nEnvironmentFile=" + proxyEnvFile + "\n"
		removes = append(removes, writeHostFile(t, proxyEnvFile, vars))
	}
	removes = append(removes, writeHostFile(t, proxyDropIn, dropIn))
	return fmt.Sprintf("https://%s:%d", proxiedAPIName, c.apiPort), func() {
		for _, r := range removes {
			r()
		}
	}
}

// writeHostFile writes a host file that must not exist and returns what
// removes it (with its directory, if it made it); that also runs when the
// test ends.
func writeHostFile(t *testing.T, path, data string) func() {
	t.Helper()
	if _, err := os.Lstat(path); err == nil {
		t.Fatalf("%s already exists on this machine", path)
	}
	dir := filepath.Dir(path)
	_, dirErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	remove := func() {
		_ = os.Remove(path)
		if dirErr != nil {
			_ = os.Remove(dir) // only if empty
		}
	}
	t.Cleanup(remove)
	return remove
}

func readCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := pem.Decode(data)
	if b == nil {
		t.Fatalf("%s: no PEM", path)
	}
	cert, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

func runBrokenJoin(t *testing.T, env suiteEnv, c *cluster, host hostInfo, nodeName, agentBin string, bj brokenJoin) {
	ctx := t.Context()
	in := userDataInput{APIVersion: "node.eks.aws/v1alpha1", Cluster: clusterName, Server: c.server, CIDR: serviceCIDR, CAPEM: c.ca.certPEM,
		Labels: "nodeboot.io/e2e=" + bj.name, Taints: "nodeboot.io/e2e=broken:NoSchedule", SandboxImage: pauseImage, NoFileLimit: hardNoFileLimit(t), NodeIP: host.ip.String()}
	if bj.userData != nil {
		bj.userData(&in)
	}
	if bj.proxy != nil {
		var remove func()
		in.Server, remove = behindProxy(t, c, *bj.proxy, bj.proxyFile)
		defer remove() // before the node's own cleanup restores the drop-in directory
	}
	userData, err := renderUserData(in)
	if err != nil {
		t.Fatal(err)
	}
	name, role := nodeName, nodeRole
	if bj.nodeName != "" {
		name = bj.nodeName
	}
	if bj.role != "" {
		role = bj.role
	}
	meta := instanceMeta{instanceID: brokenInstance, instanceType: "m5.large", region: region, az: zone, host: host, dnsName: name, userData: userData,
		iam: c.identity.launch(brokenInstance, "m5.large", nodeName, role)}
	agent := newNodebootAgent(t, agentBin, env.k8sBin, meta, nil)
	if bj.stopApprover {
		stopApprover(t, c)
	}
	n := joinNode(t, c, nodeSetup{env: env, host: host, name: name, agent: agent, kubeletEnv: agent.kubeletEnv(env), noReadyWait: !bj.stopApprover})
	exposeLogs(t, n)
	if bj.stopApprover {
		if err := waitUntil(ctx, "the node's serving CSR", time.Minute, 50*time.Millisecond, []*process{n.kubelet},
			func(context.Context) (bool, string, error) {
				_, ok := n.tl.at(msServingCreated)
				return ok, "", nil
			}); err != nil {
			t.Fatal(err)
		}
	}
	nenv := nodeEnv(env, agent)
	rep, code, _ := runDoctor(t, agentBin, nenv)
	assertBrokenReport(t, rep, code, bj.check, bj.want(c, n))
	if !bj.stopApprover {
		if _, err := c.admin.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{}); !isNotFound(err) {
			t.Errorf("Node %s: %v; the broken join must not have registered", name, err)
		}
	}
	if bj.name == "wrong-ca" {
		t.Run("init-waits-then-diagnoses", func(t *testing.T) { assertInitDiagnoses(t, agentBin, nenv, name) })
	}
}

// assertBrokenReport checks that check failed with every wanted phrase,
// that the checks before it passed and that the checks built on it were
// skipped.
func assertBrokenReport(t *testing.T, rep doctor.Report, code int, check string, want []string) {
	t.Helper()
	if code != 1 {
		t.Errorf("doctor exited %d, want 1", code)
	}
	i := slices.Index(checkOrder, check)
	for _, c := range rep.Checks[:i] {
		if c.Verdict != doctor.OK {
			t.Errorf("%s before %s: %s: %s", c.ID, check, c.Verdict, c.Summary)
		}
	}
	got, _ := rep.Check(check)
	text := got.Summary + "\n" + strings.Join(got.Evidence, "\n")
	if got.Verdict != doctor.Fail || got.Action == "" {
		t.Errorf("%s: %s (action %q), want fail with an action", check, got.Verdict, got.Action)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s does not say %q:\n%s", check, w, text)
		}
	}
	dependent := map[string][]string{
		doctor.CheckEndpoint: {doctor.CheckIdentity, doctor.CheckRegistered, doctor.CheckServingCert, doctor.CheckVersions},
		doctor.CheckIdentity: {doctor.CheckRegistered, doctor.CheckServingCert},
	}
	for _, id := range dependent[check] {
		if c, _ := rep.Check(id); c.Verdict != doctor.Skipped {
			t.Errorf("%s after a failed %s: %s, want skipped", id, check, c.Verdict)
		}
	}
}

// assertInitDiagnoses runs init's run phase (nothing to start: the
// harness runs the kubelet) with a short registration timeout: it must
// give up, print the doctor's report and write the support bundle.
func assertInitDiagnoses(t *testing.T, bin string, env []string, nodeName string) {
	removeSupportDir(t)
	const timeout = 3 * time.Second
	code, _, stderr, took, err := runNodeboot(t.Context(), bin, env, "init", "--skip", "config", "--daemon=", "--config-source", "imds://user-data",
		"--registration-timeout", timeout.String(), "--root", "/")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("init run phase exited %d after %s; its stderr:\n%s", code, took.Round(time.Millisecond), stderr)
	for _, want := range []string{"FAIL  API endpoint", "wrong CA", "the node did not register within 3s", "support bundle: " + bundle.DefaultPath} {
		if !strings.Contains(stderr, want) {
			t.Errorf("init's output lacks %q", want)
		}
	}
	if code != 1 {
		t.Errorf("init exited %d, want 1", code)
	}
	data, err := os.ReadFile(bundle.DefaultPath)
	if err != nil {
		t.Fatalf("no bundle after the registration timeout: %v", err)
	}
	_, files := unpackBundle(t, data)
	var rep doctor.Report
	if err := json.Unmarshal(files["nodeboot-logs/doctor/report.json"], &rep); err != nil {
		t.Fatal(err)
	}
	if c, _ := rep.Check(doctor.CheckEndpoint); rep.Node != nodeName || c.Verdict != doctor.Fail {
		t.Errorf("bundled report: node %q, API endpoint %s", rep.Node, c.Verdict)
	}
}

// stopApprover stops nodeboot-approver until the test ends.
func stopApprover(t *testing.T, c *cluster) {
	t.Helper()
	c.approver.stop(10 * time.Second)
	c.approver = nil // nothing waits on it meanwhile
	t.Cleanup(func() {
		p, err := startProcess(c.procs.logDir, procSpec{name: "nodeboot-approver", argv: c.approverArgv, env: c.approverEnv})
		if err != nil {
			t.Errorf("restart nodeboot-approver: %v", err)
			return
		}
		c.procs.procs = append(c.procs.procs, p)
		c.approver = p
	})
}
