package policy

import (
	"bytes"
	"crypto/x509/pkix"
	"encoding/pem"
	"net"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy/policytest"
)

// hostileDNSNames are DNS names no host has, which a node may write into
// its own status.addresses.
var hostileDNSNames = []string{"*.ec2.internal", "ip-*.ec2.internal", "a\x1b[31m\nb.example", "node.example.", ""}

// hostileIPs are IP addresses no node owns alone, which a node may write
// into its own status.addresses; net.ParseIP gives the 16-byte form.
var hostileIPs = []string{"0.0.0.0", "127.0.0.1", "169.254.169.254", "fe80::1", "224.0.0.1", "255.255.255.255"}

// FuzzDecide feeds untrusted spec.request bytes to Decide. It must never
// panic; every message must be bounded, valid UTF-8 and free of control
// characters; and an approval must only happen for a request that parses,
// is correctly signed with a strong key and algorithm, names the node and
// claims only the node's addresses, each a host name. The Node also lists
// hostileDNSNames and hostileIPs, as a node rewriting its own status would.
func FuzzDecide(f *testing.F) {
	valid := policytest.ValidFixture()
	f.Add(policytest.SignRequest(f, valid.Request, nil, nil))
	block, _ := pem.Decode(policytest.SignRequest(f, valid.Request, nil, nil))
	f.Add(block.Bytes)
	f.Add([]byte("-----BEGIN CERTIFICATE REQUEST-----\n\n-----END CERTIFICATE REQUEST-----\n"))
	f.Add([]byte{})
	signed := policytest.SignRequest(f, valid.Request, nil, nil)
	f.Add(append([]byte("garbage\n"), signed...))
	f.Add(append([]byte("-----BEGIN CERTIFICATE REQUEST-----\n!!!\n-----END CERTIFICATE REQUEST-----\n"), signed...))
	f.Add(bytes.Replace(signed, []byte("-----\n"), []byte("-----\nProc-Type: 4,ENCRYPTED\n\n"), 1))
	hidden := policytest.ValidFixture().Request
	hidden.DNSNames, hidden.IPAddresses = nil, nil
	hidden.ExtraExtensions = []pkix.Extension{constructedSANExtension(f, sanTagDNS, "kubernetes.default.svc", policytest.Node)}
	f.Add(policytest.SignRequest(f, hidden, nil, nil))
	for _, name := range hostileDNSNames {
		tmpl := policytest.ValidFixture().Request
		tmpl.DNSNames = []string{name}
		f.Add(policytest.SignRequest(f, tmpl, nil, nil))
	}
	for _, ip := range hostileIPs {
		tmpl := policytest.ValidFixture().Request
		tmpl.IPAddresses = []net.IP{net.ParseIP(ip)}
		f.Add(policytest.SignRequest(f, tmpl, nil, nil))
	}

	node := policytest.NewNode(policytest.Node)
	for _, name := range hostileDNSNames {
		node.Status.Addresses = append(node.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeExternalDNS, Address: name})
	}
	for _, ip := range hostileIPs {
		node.Status.Addresses = append(node.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: ip})
	}
	f.Fuzz(func(t *testing.T, request []byte) {
		fx := policytest.ValidFixture()
		fx.RawRequest = request
		d := Decide(policytest.NewCSR(t, fx), node, InventoryAnswer{}, Policy{})
		checkMessage(t, d)
		if !d.Approve {
			return
		}
		req, err := ParseRequest(request)
		if err != nil {
			t.Fatalf("approved a request that does not parse: %v", err)
		}
		if err := req.CheckSignature(); err != nil {
			t.Fatalf("approved a request with a bad signature: %v", err)
		}
		if d := checkPublicKey(&candidate{req: req}); d != nil {
			t.Fatalf("approved a request with a weak key: %s", d.Message)
		}
		if d := checkSignatureAlgorithm(&candidate{req: req}); d != nil {
			t.Fatalf("approved a request with a weak signature: %s", d.Message)
		}
		if req.Subject.CommonName != NodeUserPrefix+policytest.Node {
			t.Fatalf("approved CN %q", req.Subject.CommonName)
		}
		if d := checkDNSNameSyntax(&candidate{req: req}); d != nil {
			t.Fatalf("approved a DNS SAN that is no host name: %s", d.Message)
		}
		for _, name := range req.DNSNames {
			if !slices.Contains(nodeDNSNames(node), name) {
				t.Fatalf("approved foreign DNS SAN %q", name)
			}
		}
		if d := checkIPAddressKinds(&candidate{req: req}); d != nil {
			t.Fatalf("approved an IP SAN no node owns: %s", d.Message)
		}
		for _, ip := range req.IPAddresses {
			addr, _ := sanAddr(ip)
			if !slices.Contains(nodeIPs(node), addr) {
				t.Fatalf("approved foreign IP SAN %s", ip)
			}
		}
	})
}

// checkMessage fails unless d has a reason and a message of at most
// MaxMessageBytes of valid UTF-8 without control characters.
func checkMessage(t *testing.T, d Decision) {
	t.Helper()
	if d.Reason == "" || d.Message == "" {
		t.Fatalf("Decide() returned an empty reason or message: %+v", d)
	}
	if len(d.Message) > MaxMessageBytes || !utf8.ValidString(d.Message) {
		t.Fatalf("message of %d bytes (valid UTF-8 %t): %q", len(d.Message), utf8.ValidString(d.Message), d.Message)
	}
	if i := strings.IndexFunc(d.Message, unicode.IsControl); i >= 0 {
		t.Fatalf("message has a control character at %d: %q", i, d.Message)
	}
}

// FuzzSANTags feeds raw subjectAltName extension values to the decoder
// that looks for GeneralName types crypto/x509 ignores.
func FuzzSANTags(f *testing.F) {
	f.Add(otherNameSANExtension(f, policytest.Node).Value)
	f.Add(constructedSANExtension(f, sanTagDNS, "kubernetes.default.svc", policytest.Node).Value)
	f.Add([]byte{0x30, 0x00})
	f.Add([]byte{0x30, 0x03, 0x82, 0x01, 'a'})
	f.Fuzz(func(t *testing.T, der []byte) {
		tags, err := sanTags(der)
		if err != nil && len(tags) > 0 {
			t.Fatalf("sanTags returned tags %v with error %v", tags, err)
		}
	})
}
