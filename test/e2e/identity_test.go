//go:build e2e

package e2e

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
)

// assertIdentity checks how the kubelet authenticated: through the
// rendered exec-credential kubeconfig, which runs Debian's AWS CLI (`aws eks
// get-token`) signing with the instance role's credentials from IMDS, a
// token the real EKS authenticator verified against STS and mapped through
// aws-auth; or through TLS bootstrapping with the bootstrap token and the CA
// the agent discovered from kube-public/cluster-info and pinned.
func assertIdentity(t *testing.T, c *cluster, n *node, sc joinScenario, kubeletEnv []string) {
	t.Helper()
	ca, err := os.ReadFile(clusterCAFile)
	if err != nil {
		t.Fatalf("cluster CA: %v", err)
	}
	if !bytes.Equal(bytes.TrimSpace(ca), bytes.TrimSpace(c.ca.certPEM)) {
		t.Errorf("%s is not the cluster CA", clusterCAFile)
	}
	if got := flagValue(n.rendered.args, "kubeconfig"); got != kubeletKubeconfig {
		t.Errorf("--kubeconfig = %q, want %q", got, kubeletKubeconfig)
	}
	session := c.identity.session(sc.instanceID)
	if sc.bootstrap {
		assertBootstrapIdentity(t, c, n)
		if calls := c.identity.sts.CallsBy(session.AccessKeyID); calls > 0 {
			t.Errorf("the bootstrap-token kubelet's instance role signed %d tokens", calls)
		}
		return
	}
	if got := flagValue(n.rendered.args, "bootstrap-kubeconfig"); got != "" {
		t.Errorf("exec-credential kubelet has --bootstrap-kubeconfig=%s", got)
	}
	assertExecKubeconfig(t, c)
	assertRealAWSCLI(t, kubeletEnv)
	if calls := c.identity.sts.CallsBy(session.AccessKeyID); calls == 0 {
		t.Errorf("STS verified no token signed with instance %s's role credentials", sc.instanceID)
	}
	if !c.identity.describedInstance(sc.instanceID) {
		t.Errorf("the authenticator never asked EC2 for %s's private DNS name", sc.instanceID)
	}
	u, err := whoAmI(t.Context(), c, c.identity, session)
	if err != nil {
		t.Fatal(err)
	}
	wantUser := "system:node:" + n.name
	if u.Username != wantUser || !slices.Contains(u.Groups, bootstrapGroup) || !slices.Contains(u.Groups, nodesGroup) {
		t.Errorf("the instance role authenticates as %q in %q, want %s in %s and %s", u.Username, u.Groups, wantUser, bootstrapGroup, nodesGroup)
	}
	if !c.authenticator.said("access granted", `username="`+wantUser+`"`) {
		t.Errorf("the authenticator's log has no \"access granted\" for %s", wantUser)
	}
}

// assertExecKubeconfig checks the kubelet's kubeconfig: the cluster and
// `aws eks get-token` for this cluster and region.
func assertExecKubeconfig(t *testing.T, c *cluster) {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(kubeletKubeconfig)
	if err != nil {
		t.Fatalf("kubelet kubeconfig: %v", err)
	}
	ctx := cfg.Contexts[cfg.CurrentContext]
	if ctx == nil {
		t.Fatalf("kubelet kubeconfig has no current context")
	}
	cl, user := cfg.Clusters[ctx.Cluster], cfg.AuthInfos[ctx.AuthInfo]
	if cl == nil || cl.Server != c.server || cl.CertificateAuthority != clusterCAFile {
		t.Errorf("kubelet kubeconfig cluster = %+v, want server %s with CA file %s", cl, c.server, clusterCAFile)
	}
	if user == nil || user.Exec == nil || user.Exec.Command != "aws" || !slices.Equal(user.Exec.Args, eksGetTokenArgs) {
		t.Fatalf("kubelet kubeconfig user = %+v, want exec aws %v", user, eksGetTokenArgs)
	}
}

// assertRealAWSCLI checks that the `aws` the kubelet runs is Debian's
// AWS CLI v2 (no stand-in on its PATH).
func assertRealAWSCLI(t *testing.T, kubeletEnv []string) {
	t.Helper()
	path, err := lookPathIn("aws", amiPATH)
	if err != nil || path != "/usr/bin/aws" {
		t.Fatalf("aws on the kubelet's PATH is %q (%v), want Debian's /usr/bin/aws (install-deps.sh installs awscli)", path, err)
	}
	cmd := exec.CommandContext(t.Context(), path, "--version")
	cmd.Env = append([]string{"PATH=" + amiPATH}, kubeletEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "aws-cli/2.") {
		t.Errorf("aws --version = %q, %v; want aws-cli/2.x", out, err)
	}
}

// lookPathIn finds name in the directories of path.
func lookPathIn(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

func assertBootstrapIdentity(t *testing.T, c *cluster, n *node) {
	t.Helper()
	if got := flagValue(n.rendered.args, "bootstrap-kubeconfig"); got != bootstrapKubeconfig {
		t.Errorf("--bootstrap-kubeconfig = %q, want %q", got, bootstrapKubeconfig)
	}
	cfg, err := clientcmd.LoadFromFile(bootstrapKubeconfig)
	if err != nil {
		t.Fatalf("bootstrap kubeconfig: %v", err)
	}
	ctx := cfg.Contexts[cfg.CurrentContext]
	if ctx == nil || cfg.AuthInfos[ctx.AuthInfo] == nil || cfg.Clusters[ctx.Cluster] == nil {
		t.Fatalf("bootstrap kubeconfig has no usable current context: %+v", cfg)
	}
	if tok := cfg.AuthInfos[ctx.AuthInfo].Token; tok != c.bootstrapToken {
		t.Errorf("bootstrap kubeconfig token is not the bootstrap token")
	}
	if s := cfg.Clusters[ctx.Cluster].Server; s != c.server {
		t.Errorf("bootstrap kubeconfig server = %q, want %q", s, c.server)
	}
	certPEM, err := os.ReadFile(filepath.Join(kubeletPKIDir, "kubelet-client-current.pem"))
	if err != nil {
		t.Fatalf("kubelet client certificate: %v", err)
	}
	block, rest := pem.Decode(certPEM)
	for block != nil && block.Type != "CERTIFICATE" {
		block, rest = pem.Decode(rest)
	}
	if block == nil {
		t.Fatalf("no certificate in kubelet-client-current.pem")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	wantCN := "system:node:" + n.name
	if cert.Subject.CommonName != wantCN || !slices.Equal(cert.Subject.Organization, []string{nodesGroup}) {
		t.Errorf("kubelet client certificate subject %s, want CN=%s O=%s", cert.Subject, wantCN, nodesGroup)
	}
	if err := cert.CheckSignatureFrom(c.ca.cert); err != nil {
		t.Errorf("kubelet client certificate not signed by the cluster CA: %v", err)
	}
	assertClientCSR(t, c, "system:bootstrap:"+tokenID(c.bootstrapToken))
}

// assertClientCSR checks the TLS bootstrap: exactly one kubelet client CSR,
// requested with the bootstrap token, auto-approved by
// kube-controller-manager and issued.
func assertClientCSR(t *testing.T, c *cluster, wantRequester string) {
	t.Helper()
	list, err := c.admin.CertificatesV1().CertificateSigningRequests().List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var client []certificatesv1.CertificateSigningRequest
	for _, csr := range list.Items {
		if csr.Spec.SignerName == certificatesv1.KubeAPIServerClientKubeletSignerName {
			client = append(client, csr)
		}
	}
	if len(client) != 1 {
		t.Fatalf("%d kubelet client CSRs, want 1", len(client))
	}
	csr := client[0]
	if csr.Spec.Username != wantRequester {
		t.Errorf("kubelet client CSR %s requested by %q, want %q", csr.Name, csr.Spec.Username, wantRequester)
	}
	approved := slices.ContainsFunc(csr.Status.Conditions, func(c certificatesv1.CertificateSigningRequestCondition) bool {
		return c.Type == certificatesv1.CertificateApproved
	})
	if !approved || len(csr.Status.Certificate) == 0 {
		t.Errorf("kubelet client CSR %s: approved=%v issued=%v, want both", csr.Name, approved, len(csr.Status.Certificate) > 0)
	}
}
