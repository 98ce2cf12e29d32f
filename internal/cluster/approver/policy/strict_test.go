package policy

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"fmt"
	"net"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy/policytest"
)

// TestDecideStrictness covers what an attacker holding one node's
// credential tries beyond the SANs: a subject carrying more than the node's
// identity, a requester name no Node can have, and requests built to make
// the approver (and the CSR's condition) carry megabytes.
func TestDecideStrictness(t *testing.T) {
	manySANs := func(n int) func(*policytest.Fixture) {
		return func(f *policytest.Fixture) {
			for i := range n {
				f.Request.IPAddresses = append(f.Request.IPAddresses, net.IPv4(10, byte(i>>16), byte(i>>8), byte(i)))
			}
		}
	}
	tests := []struct {
		name        string
		modify      func(*policytest.Fixture)
		policy      Policy
		wantReason  string
		wantMessage string
	}{
		{
			name: "OU=system:masters besides the node's identity",
			modify: func(f *policytest.Fixture) {
				f.Request.Subject.OrganizationalUnit = []string{"system:masters"}
			},
			wantReason:  ReasonUnexpectedSubjectAttribute,
			wantMessage: `the subject must be exactly CN=system:node:ip-10-0-0-1.ec2.internal, O=system:nodes; it also has OU="system:masters"`,
		},
		{
			name:        "a country",
			modify:      func(f *policytest.Fixture) { f.Request.Subject.Country = []string{"US"} },
			wantReason:  ReasonUnexpectedSubjectAttribute,
			wantMessage: `it also has C="US"`,
		},
		{
			name: "the node's CN twice",
			modify: func(f *policytest.Fixture) {
				cn := pkix.AttributeTypeAndValue{Type: asn1.ObjectIdentifier{2, 5, 4, 3}, Value: "system:node:" + policytest.Node}
				o := pkix.AttributeTypeAndValue{Type: asn1.ObjectIdentifier{2, 5, 4, 10}, Value: NodesGroup}
				raw, err := asn1.Marshal(pkix.RDNSequence{{o}, {cn}, {cn}})
				if err != nil {
					t.Fatal(err)
				}
				f.Request.RawSubject = raw
			},
			wantReason:  ReasonUnexpectedSubjectAttribute,
			wantMessage: `it also has CN="system:node:ip-10-0-0-1.ec2.internal"`,
		},
		{
			name: "an attribute without a short name",
			modify: func(f *policytest.Fixture) {
				f.Request.Subject.ExtraNames = []pkix.AttributeTypeAndValue{{Type: asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 1}, Value: "root@example.com"}}
			},
			wantReason:  ReasonUnexpectedSubjectAttribute,
			wantMessage: `1.2.840.113549.1.9.1="root@example.com"`,
		},
		{
			name: "control characters in the requester's node name",
			modify: func(f *policytest.Fixture) {
				f.Username = "system:node:ip-10-0-0-1\n.ec2.internal"
				f.Request.Subject.CommonName = f.Username
			},
			wantReason:  ReasonInvalidNodeName,
			wantMessage: `requester "system:node:ip-10-0-0-1\n.ec2.internal" names no valid Node`,
		},
		{
			name: "upper case node name",
			modify: func(f *policytest.Fixture) {
				f.Username = "system:node:IP-10-0-0-1.ec2.internal"
				f.Request.Subject.CommonName = f.Username
			},
			wantReason: ReasonInvalidNodeName,
		},
		{
			name:        "5,000 SANs",
			modify:      manySANs(5000),
			wantReason:  ReasonRequestTooLarge,
			wantMessage: "more than the 16384 a kubelet serving request needs",
		},
		{
			name:        "100 SANs",
			modify:      manySANs(100),
			wantReason:  ReasonTooManySANs,
			wantMessage: "the request has 102 SANs, more than the 64 allowed",
		},
		{
			name:        "the operator's SAN limit",
			modify:      manySANs(2),
			policy:      Policy{MaxSANs: 2},
			wantReason:  ReasonTooManySANs,
			wantMessage: "the request has 4 SANs, more than the 2 allowed",
		},
		{
			name:        "a request larger than any kubelet sends",
			modify:      func(f *policytest.Fixture) { f.RawRequest = []byte(strings.Repeat("A", MaxRequestBytes+1)) },
			wantReason:  ReasonRequestTooLarge,
			wantMessage: fmt.Sprintf("spec.request is %d bytes", MaxRequestBytes+1),
		},
		{
			name: "a long denial is cut",
			modify: func(f *policytest.Fixture) {
				for i := range 60 {
					f.Request.EmailAddresses = append(f.Request.EmailAddresses, fmt.Sprintf("%02d-%s@example.com", i, strings.Repeat("x", 40)))
				}
			},
			wantReason:  ReasonEmailSANNotAllowed,
			wantMessage: "more bytes)",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := policytest.ValidFixture()
			tc.modify(&f)
			got := Decide(policytest.NewCSR(t, f), policytest.NewNode(policytest.Node), InventoryAnswer{}, tc.policy)
			if got.Approve || got.Reason != tc.wantReason {
				t.Fatalf("Decide() = {Approve:%v Reason:%s}, want denied with %s; message: %s", got.Approve, got.Reason, tc.wantReason, got.Message)
			}
			if !strings.Contains(got.Message, tc.wantMessage) {
				t.Errorf("message %q does not contain %q", got.Message, tc.wantMessage)
			}
			if len(got.Message) > MaxMessageBytes || !utf8.ValidString(got.Message) {
				t.Errorf("message is %d bytes (valid UTF-8 %t), want at most %d", len(got.Message), utf8.ValidString(got.Message), MaxMessageBytes)
			}
		})
	}
}

func TestCapMessage(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{name: "short", in: "denied"},
		{name: "exactly the limit", in: strings.Repeat("a", MaxMessageBytes)},
		{name: "ASCII over the limit", in: strings.Repeat("a", 3*MaxMessageBytes)},
		{name: "multi-byte runes across the cut", in: strings.Repeat("ü€", MaxMessageBytes)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := capMessage(tc.in)
			if len(tc.in) <= MaxMessageBytes && got != tc.in {
				t.Fatalf("capMessage changed a short message: %q", got)
			}
			if len(got) > MaxMessageBytes || !utf8.ValidString(got) {
				t.Fatalf("capMessage() = %d bytes, valid UTF-8 %t", len(got), utf8.ValidString(got))
			}
			if len(tc.in) > MaxMessageBytes && !strings.HasSuffix(got, fmt.Sprintf("(%d more bytes)", len(tc.in)-strings.Index(got, " …"))) {
				t.Errorf("capMessage() = %q, want it to say how much it left out", got[len(got)-40:])
			}
		})
	}
}

// TestDecideDNSNameSyntax covers DNS SANs that are no host name, listed in
// the Node's own status (a kubelet may write any string there, and with the
// inventory check off the status is all Decide compares with): each would
// be approved if the SAN only had to be one of the Node's addresses.
func TestDecideDNSNameSyntax(t *testing.T) {
	tests := []struct {
		name        string
		san         string
		policy      Policy
		wantMessage string
	}{
		{name: "wildcard", san: "*.ec2.internal", wantMessage: `DNS SAN "*.ec2.internal" is a wildcard`},
		{
			name: "partial wildcard the hostname regex matches", san: "ip-*.ec2.internal",
			policy:      Policy{HostnameRegex: regexp.MustCompile(`^(?:ip-.*\.ec2\.internal)$`)},
			wantMessage: `DNS SAN "ip-*.ec2.internal" is a wildcard`,
		},
		{name: "escape sequence and newline", san: "a\x1b[31m\nb.example", wantMessage: `DNS SAN "a\x1b[31m\nb.example" is not a host name`},
		{name: "NUL", san: policytest.Node + "\x00.evil.example", wantMessage: `\x00.evil.example" is not a host name`},
		{name: "trailing dot", san: "node.example.", wantMessage: `DNS SAN "node.example." is not a host name`},
		{name: "empty label", san: "node..example", wantMessage: `is not a host name`},
		{name: "underscore", san: "node_1.example", wantMessage: `is not a host name`},
		{name: "too long", san: strings.Repeat("a.", 127) + "a", wantMessage: `at most 253 bytes`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := policytest.ValidFixture()
			f.Request.DNSNames = []string{policytest.Node, tc.san}
			node := nodeWithExtraAddress(policytest.NewNode(policytest.Node), corev1.NodeExternalDNS, tc.san)
			got := Decide(policytest.NewCSR(t, f), node, InventoryAnswer{}, tc.policy)
			if got.Approve || got.Reason != ReasonInvalidDNSName {
				t.Fatalf("Decide() = {Approve:%v Reason:%s}, want denied with %s; message: %q", got.Approve, got.Reason, ReasonInvalidDNSName, got.Message)
			}
			if !strings.Contains(got.Message, tc.wantMessage) {
				t.Errorf("message %q does not contain %q", got.Message, tc.wantMessage)
			}
			if i := strings.IndexFunc(got.Message, unicode.IsControl); i >= 0 {
				t.Errorf("message %q has a control character at %d", got.Message, i)
			}
		})
	}
}

// TestDecideIPAddressKinds covers IP SANs no node owns alone, listed in the
// Node's own status, in both encodings crypto/x509 accepts (4 bytes, and 16
// bytes IPv4-mapped).
func TestDecideIPAddressKinds(t *testing.T) {
	tests := []struct {
		name, san   string
		mapped      bool
		wantMessage string
	}{
		{name: "IPv4 unspecified", san: "0.0.0.0", wantMessage: "IP SAN 0.0.0.0 is unspecified"},
		{name: "IPv6 unspecified", san: "::", wantMessage: "IP SAN :: is unspecified"},
		{name: "IPv4 loopback", san: "127.0.0.1", wantMessage: "IP SAN 127.0.0.1 is a loopback address"},
		{name: "IPv4 loopback, IPv4-mapped", san: "127.0.0.1", mapped: true, wantMessage: "is a loopback address"},
		{name: "IPv6 loopback", san: "::1", wantMessage: "IP SAN ::1 is a loopback address"},
		{name: "instance metadata service", san: "169.254.169.254", wantMessage: "IP SAN 169.254.169.254 is a link-local address"},
		{name: "instance metadata service, IPv4-mapped", san: "169.254.169.254", mapped: true, wantMessage: "is a link-local address"},
		// fd00:ec2::254 (IPv6 IMDS) is a unique local address, as private as
		// 10/8: only the inventory check, which EC2 does not list it in, denies it.
		{name: "IPv6 instance metadata service", san: "fd00:ec2::254", wantMessage: ""},
		{name: "IPv6 link-local", san: "fe80::1", wantMessage: "IP SAN fe80::1 is a link-local address"},
		{name: "IPv4 multicast", san: "224.0.0.1", wantMessage: "IP SAN 224.0.0.1 is a multicast address"},
		{name: "IPv6 multicast", san: "ff02::1", wantMessage: "is a multicast address"},
		{name: "IPv4 broadcast", san: "255.255.255.255", wantMessage: "IP SAN 255.255.255.255 is a broadcast address"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ip := net.ParseIP(tc.san)
			if !tc.mapped {
				if v4 := ip.To4(); v4 != nil {
					ip = v4
				}
			}
			f := policytest.ValidFixture()
			f.Request.IPAddresses = []net.IP{ip}
			node := nodeWithExtraAddress(policytest.NewNode(policytest.Node), corev1.NodeInternalIP, tc.san)
			got := Decide(policytest.NewCSR(t, f), node, InventoryAnswer{}, Policy{})
			want := ReasonIPAddressNotGlobalUnicast
			if tc.wantMessage == "" {
				want = ReasonApproved
			}
			if got.Reason != want {
				t.Fatalf("Decide() = {Approve:%v Reason:%s}, want %s; message: %q", got.Approve, got.Reason, want, got.Message)
			}
			if !strings.Contains(got.Message, tc.wantMessage) {
				t.Errorf("message %q does not contain %q", got.Message, tc.wantMessage)
			}
		})
	}
}
