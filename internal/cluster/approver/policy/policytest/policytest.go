// Package policytest builds what the approver's tests decide on: a kubelet
// serving CSR of one node as its kubelet sends it, the Node it names and
// the EC2 instance behind that Node, each for a test to change. It spells
// out the Kubernetes names (system:node:, system:nodes, CERTIFICATE
// REQUEST) itself rather than importing package policy, so that policy's
// own tests can use it and check those names independently.
package policytest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"net"
	"net/netip"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeboot/nodeboot/internal/aws/ec2/ec2instance"
)

// Names of the node, CSR and EC2 instance of the fixtures.
const (
	// Node is the node whose kubelet requests the CSR.
	Node = "ip-10-0-0-1.ec2.internal"
	// OtherNode is another node of the cluster.
	OtherNode = "ip-10-0-0-2.ec2.internal"
	// CSRName is the name of the CSR object.
	CSRName = "csr-abcde"
	// InstanceID is the EC2 instance behind Node.
	InstanceID = "i-0123456789abcdef0"
	// Zone is InstanceID's availability zone.
	Zone = "us-east-1a"
	// ProviderID is Node's spec.providerID as the kubelet sets it on EC2.
	ProviderID = "aws:///" + Zone + "/" + InstanceID
	// VPC and Account are the cluster's VPC and AWS account, where
	// InstanceID runs.
	VPC     = "vpc-0123456789abcdef0"
	Account = "111122223333"
)

// Created is the CSR's creation time; the Node registered a day earlier.
func Created() time.Time {
	return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
}

// Fixture describes a CSR object and the x509 request inside it.
type Fixture struct {
	Name       string
	Username   string
	Groups     []string
	Signer     string
	Usages     []certificatesv1.KeyUsage
	Expiration *int32
	Request    x509.CertificateRequest
	// Key signs the request; nil means a fresh ECDSA P-256 key, what a
	// kubelet uses.
	Key crypto.Signer
	// Tamper rewrites the signed DER before PEM encoding.
	Tamper func(t testing.TB, der []byte) []byte
	// RawRequest replaces spec.request when not nil.
	RawRequest []byte
	Status     certificatesv1.CertificateSigningRequestStatus
}

// ValidFixture is a kubelet serving CSR for Node as an ECDSA kubelet sends
// it, with SANs DNS:Node and IP:10.0.0.1.
func ValidFixture() Fixture {
	return Fixture{
		Name:     CSRName,
		Username: "system:node:" + Node,
		Groups:   []string{"system:nodes", "system:authenticated"},
		Signer:   certificatesv1.KubeletServingSignerName,
		Usages:   []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageServerAuth},
		Request: x509.CertificateRequest{
			Subject:     pkix.Name{CommonName: "system:node:" + Node, Organization: []string{"system:nodes"}},
			DNSNames:    []string{Node},
			IPAddresses: []net.IP{net.ParseIP("10.0.0.1")},
		},
	}
}

// NewCSR returns the CSR object f describes, created at Created.
func NewCSR(t testing.TB, f Fixture) *certificatesv1.CertificateSigningRequest {
	t.Helper()
	req := f.RawRequest
	if req == nil {
		req = SignRequest(t, f.Request, f.Key, f.Tamper)
	}
	return &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: f.Name, CreationTimestamp: metav1.NewTime(Created())},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:           req,
			SignerName:        f.Signer,
			ExpirationSeconds: f.Expiration,
			Usages:            f.Usages,
			Username:          f.Username,
			Groups:            f.Groups,
		},
		Status: f.Status,
	}
}

// SignRequest creates a PEM CSR from tmpl signed with key (nil: a fresh
// ECDSA P-256 key) and the template's signature algorithm; tamper, when not
// nil, rewrites the signed DER before PEM encoding.
func SignRequest(t testing.TB, tmpl x509.CertificateRequest, key crypto.Signer, tamper func(testing.TB, []byte) []byte) []byte {
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
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

// NewNode returns a Node registered a day before the CSR, with the
// addresses a cloud controller manager sets on EC2.
func NewNode(name string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: "node-uid-1", CreationTimestamp: metav1.NewTime(Created().Add(-24 * time.Hour))},
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

// EC2Node is NewNode(Node) with providerID as its spec.providerID.
func EC2Node(providerID string) *corev1.Node {
	n := NewNode(Node)
	n.Spec.ProviderID = providerID
	return n
}

// SecondaryIP is a secondary private IP of Instance (a pod's, under the
// VPC CNI), which the Node does not report.
const SecondaryIP = "10.0.0.9"

// Instance is the EC2 instance behind Node: the Node's addresses plus
// SecondaryIP.
func Instance() ec2instance.Instance {
	return ec2instance.Instance{
		ID: InstanceID, State: "running", AvailabilityZone: Zone,
		PrivateDNSName: Node, PublicDNSName: "ec2-54-1-2-3.compute-1.amazonaws.com",
		PrivateIP:    netip.MustParseAddr("10.0.0.1"),
		IPv6s:        []netip.Addr{netip.MustParseAddr("fd00:ec2::1")},
		PublicIP:     netip.MustParseAddr("54.1.2.3"),
		SecondaryIPs: []netip.Addr{netip.MustParseAddr(SecondaryIP)},
		VPCID:        VPC, OwnerID: Account,
	}
}
