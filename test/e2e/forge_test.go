//go:build e2e

package e2e

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"net"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
)

// forgery is a kubelet-serving CSR nodeboot-approver must deny.
type forgery struct {
	name       string
	requester  kubernetes.Interface
	commonName string
	dnsNames   []string
	ips        []net.IP
	usages     []certificatesv1.KeyUsage
	key        csrKey
	wantReason string
	// wantForbidden: the API server itself must refuse to create it
	// (NodeRestriction admission: a node may only ask for its own CN).
	wantForbidden bool
}

var servingUsages = []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageServerAuth}

// forgeries returns the attacks one joined node must resist: a node
// credential asking for another node's name (CN or DNS SAN), a DNS name or
// IP the policy forbids, an in-policy IP that is not its instance's, an
// address of its instance its Node does not report, client usages, a SHA-1
// signature or a 1024-bit RSA key, a subject with OU=system:masters, 100
// SANs; and non-node requesters (cluster admin,
// a service account, the bootstrap token) asking for the node's
// certificate. Names and IPs that are not the instance's are denied by the
// EC2 inventory check, which runs before the Node's addresses are compared.
func forgeries(nodeName string, host hostInfo, inv *cloudInventory, node, admin, serviceAccount, bootstrap kubernetes.Interface) []forgery {
	self := "system:node:" + nodeName
	other := "ip-10-99-99-99.us-west-2.compute.internal" // matches the hostname policy
	nodeIP := host.ip
	return []forgery{
		{name: "node asks for another node's name (CN)", requester: node, commonName: "system:node:" + other,
			dnsNames: []string{other}, ips: []net.IP{nodeIP}, usages: servingUsages, wantForbidden: true},
		{name: "node asks for another node's DNS name", requester: node, commonName: self,
			dnsNames: []string{other}, ips: []net.IP{nodeIP}, usages: servingUsages, wantReason: policy.ReasonDNSNameNotInstanceAddress},
		{name: "node adds a DNS name outside the hostname policy", requester: node, commonName: self,
			dnsNames: []string{nodeName, "kubernetes.default.svc"}, ips: []net.IP{nodeIP}, usages: servingUsages, wantReason: policy.ReasonDNSNameRejectedByPolicy},
		{name: "node claims an IP outside the allowed CIDRs", requester: node, commonName: self,
			dnsNames: []string{nodeName}, ips: []net.IP{nodeIP, net.ParseIP("203.0.113.7")}, usages: servingUsages, wantReason: policy.ReasonIPAddressOutsideAllowedCIDRs},
		{name: "node claims a neighbour's IP", requester: node, commonName: self,
			dnsNames: []string{nodeName}, ips: []net.IP{inv.neighbour}, usages: servingUsages, wantReason: policy.ReasonIPAddressNotInstanceAddress},
		{name: "node claims its instance's secondary IP (a pod's), which its Node does not report", requester: node, commonName: self,
			dnsNames: []string{nodeName}, ips: []net.IP{inv.secondary}, usages: servingUsages, wantReason: policy.ReasonIPAddressNotPrimary},
		{name: "node signs with SHA-1", requester: node, commonName: self, key: csrKey{rsaBits: 2048, alg: x509.SHA1WithRSA},
			dnsNames: []string{nodeName}, ips: []net.IP{nodeIP}, usages: servingUsages, wantReason: policy.ReasonWeakSignatureAlgorithm},
		{name: "node uses a 1024-bit RSA key", requester: node, commonName: self, key: csrKey{rsaBits: 1024},
			dnsNames: []string{nodeName}, ips: []net.IP{nodeIP}, usages: servingUsages, wantReason: policy.ReasonWeakKey},
		{name: "node asks for client auth", requester: node, commonName: self,
			dnsNames: []string{nodeName}, ips: []net.IP{nodeIP},
			usages:     []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageServerAuth, certificatesv1.UsageClientAuth},
			wantReason: policy.ReasonUsageNotAllowed},
		{name: "node adds OU=system:masters to its subject", requester: node, commonName: self, key: csrKey{orgUnits: []string{"system:masters"}},
			dnsNames: []string{nodeName}, ips: []net.IP{nodeIP}, usages: servingUsages, wantReason: policy.ReasonUnexpectedSubjectAttribute},
		{name: "node asks for 100 SANs", requester: node, commonName: self,
			dnsNames: []string{nodeName}, ips: repeatIP(nodeIP, 100), usages: servingUsages, wantReason: policy.ReasonTooManySANs},
		{name: "cluster admin asks for the node's certificate", requester: admin, commonName: self,
			dnsNames: []string{nodeName}, ips: []net.IP{nodeIP}, usages: servingUsages, wantReason: policy.ReasonRequesterNotNode},
		{name: "service account asks for the node's certificate", requester: serviceAccount, commonName: self,
			dnsNames: []string{nodeName}, ips: []net.IP{nodeIP}, usages: servingUsages, wantReason: policy.ReasonRequesterNotNode},
		{name: "bootstrap token asks for the node's certificate", requester: bootstrap, commonName: self,
			dnsNames: []string{nodeName}, ips: []net.IP{nodeIP}, usages: servingUsages, wantReason: policy.ReasonRequesterNotNode},
	}
}

// repeatIP returns n copies of ip.
func repeatIP(ip net.IP, n int) []net.IP {
	out := make([]net.IP, n)
	for i := range out {
		out[i] = ip
	}
	return out
}

// assertForgeriesDenied creates every forgery, then checks that each was
// refused by the API server or denied by nodeboot-approver with the
// expected reason.
func assertForgeriesDenied(t *testing.T, c *cluster, fs []forgery) {
	t.Helper()
	ctx := t.Context()
	created := make([]string, len(fs))
	for i, f := range fs {
		req, err := csrPEM(f.key, f.commonName, f.dnsNames, f.ips)
		if err != nil {
			t.Fatal(err)
		}
		csr := &certificatesv1.CertificateSigningRequest{
			ObjectMeta: metav1.ObjectMeta{GenerateName: fmt.Sprintf("forged-%d-", i)},
			Spec: certificatesv1.CertificateSigningRequestSpec{
				Request: req, SignerName: certificatesv1.KubeletServingSignerName, Usages: f.usages,
			},
		}
		got, err := f.requester.CertificatesV1().CertificateSigningRequests().Create(ctx, csr, metav1.CreateOptions{})
		switch {
		case f.wantForbidden && apierrors.IsForbidden(err):
			t.Logf("refused by the API server as expected: %s: %v", f.name, err)
		case f.wantForbidden:
			t.Errorf("%s: create CSR: got %v, want Forbidden (NodeRestriction)", f.name, err)
		case err != nil:
			t.Errorf("%s: create CSR: %v", f.name, err)
		default:
			created[i] = got.Name
		}
	}
	timeout := approverNodeWait + 10*time.Second
	for i, f := range fs {
		if created[i] == "" {
			continue
		}
		cond, err := csrDecision(ctx, c, created[i], timeout)
		switch {
		case err != nil:
			t.Errorf("%s: %v", f.name, err)
		case cond.Type != certificatesv1.CertificateDenied:
			t.Errorf("%s: CSR %s was %s (%s: %s), want Denied", f.name, created[i], cond.Type, cond.Reason, cond.Message)
		case cond.Reason != f.wantReason:
			t.Errorf("%s: denied with reason %s (%s), want %s", f.name, cond.Reason, cond.Message, f.wantReason)
		default:
			t.Logf("denied as expected: %s: %s: %s", f.name, cond.Reason, cond.Message)
		}
	}
}

// csrKey says how a request is signed, and what its subject holds besides
// CN and O. The zero value is what a kubelet does: a fresh ECDSA P-256
// key, ECDSA with SHA-256.
type csrKey struct {
	// rsaBits, when not 0, uses a fresh RSA key of this size instead.
	rsaBits int
	// alg, when not 0, is the signature algorithm.
	alg x509.SignatureAlgorithm
	// orgUnits are added to the subject as OU attributes; emails are
	// email SANs.
	orgUnits, emails []string
}

// csrPEM returns a PKCS#10 request with subject O=system:nodes, CN=cn.
func csrPEM(k csrKey, cn string, dns []string, ips []net.IP) ([]byte, error) {
	var key crypto.Signer
	var err error
	if k.rsaBits > 0 {
		key, err = rsa.GenerateKey(rand.Reader, k.rsaBits)
	} else {
		key, _, err = newKey()
	}
	if err != nil {
		return nil, err
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject:            pkix.Name{CommonName: cn, Organization: []string{nodesGroup}, OrganizationalUnit: k.orgUnits},
		DNSNames:           dns,
		IPAddresses:        ips,
		EmailAddresses:     k.emails,
		SignatureAlgorithm: k.alg,
	}, key)
	if err != nil {
		return nil, fmt.Errorf("create CSR: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}), nil
}

// serviceAccountClient returns a client authenticated as a service
// account that RBAC allows to create CSRs.
func serviceAccountClient(ctx context.Context, c *cluster) (kubernetes.Interface, error) {
	const name, ns = "csr-forger", metav1.NamespaceDefault
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	if _, err := c.admin.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !isAlreadyExists(err) {
		return nil, fmt.Errorf("create service account: %w", err)
	}
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"certificates.k8s.io"},
			Resources: []string{"certificatesigningrequests"}, Verbs: []string{"create", "get"}}},
	}
	if _, err := c.admin.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !isAlreadyExists(err) {
		return nil, fmt.Errorf("create ClusterRole: %w", err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}},
	}
	if _, err := c.admin.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !isAlreadyExists(err) {
		return nil, fmt.Errorf("create ClusterRoleBinding: %w", err)
	}
	expiry := int64(600)
	tr, err := c.admin.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("request service account token: %w", err)
	}
	return kubernetes.NewForConfig(restConfig(c.server, c.ca.certPEM, credentials{token: tr.Status.Token}))
}

// tokenClient returns a client authenticated with a bearer token.
func tokenClient(c *cluster, token string) (kubernetes.Interface, error) {
	return kubernetes.NewForConfig(restConfig(c.server, c.ca.certPEM, credentials{token: token}))
}
