package policy

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"net"
	"net/url"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	testNode      = "ip-10-0-0-1.ec2.internal"
	testOtherNode = "ip-10-0-0-2.ec2.internal"
	testCSRName   = "csr-abcde"
)

var testCreated = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// fixture describes a CSR object and the x509 request inside it.
type fixture struct {
	name       string
	username   string
	groups     []string
	signer     string
	usages     []certificatesv1.KeyUsage
	expiration *int32
	request    x509.CertificateRequest
	// key signs the request; nil means a fresh ECDSA P-256 key, what a
	// kubelet uses.
	key crypto.Signer
	// tamper rewrites the signed DER before PEM encoding.
	tamper func(t testing.TB, der []byte) []byte
	// rawRequest replaces spec.request when not nil.
	rawRequest []byte
	status     certificatesv1.CertificateSigningRequestStatus
}

// validFixture is a kubelet serving CSR for testNode as an ECDSA kubelet
// sends it.
func validFixture() fixture {
	return fixture{
		name:     testCSRName,
		username: NodeUserPrefix + testNode,
		groups:   []string{NodesGroup, "system:authenticated"},
		signer:   certificatesv1.KubeletServingSignerName,
		usages:   []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageServerAuth},
		request: x509.CertificateRequest{
			Subject:     pkix.Name{CommonName: NodeUserPrefix + testNode, Organization: []string{NodesGroup}},
			DNSNames:    []string{testNode},
			IPAddresses: []net.IP{net.ParseIP("10.0.0.1")},
		},
	}
}

func newCSR(t testing.TB, f fixture) *certificatesv1.CertificateSigningRequest {
	t.Helper()
	req := f.rawRequest
	if req == nil {
		req = signRequestWith(t, f.request, f.key, f.tamper)
	}
	return &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: f.name, CreationTimestamp: metav1.NewTime(testCreated)},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:           req,
			SignerName:        f.signer,
			ExpirationSeconds: f.expiration,
			Usages:            f.usages,
			Username:          f.username,
			Groups:            f.groups,
		},
		Status: f.status,
	}
}

// signRequest creates a PEM CSR signed with a fresh ECDSA P-256 key.
func signRequest(t testing.TB, tmpl x509.CertificateRequest, tamper func(testing.TB, []byte) []byte) []byte {
	t.Helper()
	return signRequestWith(t, tmpl, nil, tamper)
}

// signRequestWith creates a PEM CSR signed with key (nil: a fresh ECDSA
// P-256 key) and the template's signature algorithm.
func signRequestWith(t testing.TB, tmpl x509.CertificateRequest, key crypto.Signer, tamper func(testing.TB, []byte) []byte) []byte {
	t.Helper()
	if key == nil {
		var err error
		if key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			t.Fatalf("generate key: %v", err)
		}
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &tmpl, key)
	if err != nil {
		t.Fatalf("create CSR: %v", err)
	}
	if tamper != nil {
		der = tamper(t, der)
	}
	return pem.EncodeToMemory(&pem.Block{Type: pemTypeCSR, Bytes: der})
}

// replaceOnce replaces exactly one occurrence of old in der, failing the
// test when there is none.
func replaceOnce(old, new []byte) func(testing.TB, []byte) []byte {
	return func(t testing.TB, der []byte) []byte {
		t.Helper()
		if !bytes.Contains(der, old) {
			t.Fatalf("tamper: % x not found in DER", old)
		}
		return bytes.Replace(der, old, new, 1)
	}
}

// newNode returns a Node registered a day before the test CSR, with the
// addresses a cloud controller manager sets on EC2.
func newNode(name string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: "node-uid-1", CreationTimestamp: metav1.NewTime(testCreated.Add(-24 * time.Hour))},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: "10.0.0.1"},
			{Type: corev1.NodeInternalIP, Address: "fd00:ec2::1"},
			{Type: corev1.NodeExternalIP, Address: "54.1.2.3"},
			{Type: corev1.NodeHostName, Address: name},
			{Type: corev1.NodeInternalDNS, Address: name},
			{Type: corev1.NodeExternalDNS, Address: "ec2-54-1-2-3.compute-1.amazonaws.com"},
		}},
	}
}

func mustParseURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatalf("parse URL %q: %v", s, err)
	}
	return u
}

func int32Ptr(v int32) *int32 { return &v }
