package approver

import (
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
	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
)

const (
	testNode       = "ip-10-0-0-1.ec2.internal"
	testOtherNode  = "ip-10-0-0-2.ec2.internal"
	testCSRName    = "csr-abcde"
	testInstanceID = "i-0123456789abcdef0"
	testZone       = "us-east-1a"
	testProviderID = "aws:///" + testZone + "/" + testInstanceID
)

var testCreated = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// fixture describes a CSR object and the x509 request inside it.
type fixture struct {
	name     string
	username string
	groups   []string
	signer   string
	usages   []certificatesv1.KeyUsage
	request  x509.CertificateRequest
	status   certificatesv1.CertificateSigningRequestStatus
}

// validFixture is a kubelet serving CSR for testNode as an ECDSA kubelet
// sends it.
func validFixture() fixture {
	return fixture{
		name:     testCSRName,
		username: policy.NodeUserPrefix + testNode,
		groups:   []string{policy.NodesGroup, "system:authenticated"},
		signer:   certificatesv1.KubeletServingSignerName,
		usages:   []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageServerAuth},
		request: x509.CertificateRequest{
			Subject:     pkix.Name{CommonName: policy.NodeUserPrefix + testNode, Organization: []string{policy.NodesGroup}},
			DNSNames:    []string{testNode},
			IPAddresses: []net.IP{net.ParseIP("10.0.0.1")},
		},
	}
}

func newCSR(t testing.TB, f fixture) *certificatesv1.CertificateSigningRequest {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("generate key: %v", err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &f.request, key)
	if err != nil {
		t.Fatalf("create CSR: %v", err)
	}
	return &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: f.name, CreationTimestamp: metav1.NewTime(testCreated)},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
			SignerName: f.signer,
			Usages:     f.usages,
			Username:   f.username,
			Groups:     f.groups,
		},
		Status: f.status,
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

// testInstance is the EC2 instance behind testNode: the Node's addresses
// plus a secondary private IP the Node does not report.
func testInstance() ec2instance.Instance {
	return ec2instance.Instance{
		ID: testInstanceID, State: "running", AvailabilityZone: testZone,
		PrivateDNSName: testNode, PublicDNSName: "ec2-54-1-2-3.compute-1.amazonaws.com",
		PrivateIPs: []netip.Addr{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.9")},
		IPv6s:      []netip.Addr{netip.MustParseAddr("fd00:ec2::1")},
		PublicIP:   netip.MustParseAddr("54.1.2.3"),
	}
}

// ec2Node is newNode with the providerID the kubelet sets on EC2.
func ec2Node(providerID string) *corev1.Node {
	n := newNode(testNode)
	n.Spec.ProviderID = providerID
	return n
}

func byID(instances ...ec2instance.Instance) policy.InventoryAnswer {
	return policy.InventoryAnswer{Key: policy.InstanceKey{ID: testInstanceID}, Instances: instances}
}
