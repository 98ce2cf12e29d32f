//go:build e2e

package e2e

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
)

// assertIdentity checks how the kubelet authenticated: through the
// rendered exec-credential kubeconfig (`aws eks get-token`), or through
// TLS bootstrapping with the bootstrap token and the CA the agent
// discovered from kube-public/cluster-info and pinned.
func assertIdentity(t *testing.T, c *cluster, n *node, bootstrap bool, awsLog string, wantAWSArgs []string) {
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
	calls, _ := os.ReadFile(awsLog)
	if bootstrap {
		assertBootstrapIdentity(t, c, n)
		if len(calls) > 0 {
			t.Errorf("the bootstrap-token kubelet called aws: %s", calls)
		}
		return
	}
	if got := flagValue(n.rendered.args, "bootstrap-kubeconfig"); got != "" {
		t.Errorf("exec-credential kubelet has --bootstrap-kubeconfig=%s", got)
	}
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
	if user == nil || user.Exec == nil || user.Exec.Command != "aws" || !slices.Equal(user.Exec.Args, wantAWSArgs) {
		t.Fatalf("kubelet kubeconfig user = %+v, want exec aws %v", user, wantAWSArgs)
	}
	want := strings.Join(wantAWSArgs, " ")
	lines := strings.Split(strings.TrimSpace(string(calls)), "\n")
	if len(calls) == 0 || slices.ContainsFunc(lines, func(l string) bool { return l != want }) {
		t.Errorf("aws calls by the kubelet = %q, want only %q", lines, want)
	}
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
