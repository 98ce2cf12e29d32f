package policy

import (
	"bytes"
	"crypto/x509/pkix"
	"encoding/asn1"
	"net"
	"net/netip"
	"regexp"
	"strings"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy/policytest"
)

func TestDecide(t *testing.T) {
	usage := func(u ...certificatesv1.KeyUsage) []certificatesv1.KeyUsage { return u }
	const (
		ds  = certificatesv1.UsageDigitalSignature
		ke  = certificatesv1.UsageKeyEncipherment
		sa  = certificatesv1.UsageServerAuth
		ca  = certificatesv1.UsageClientAuth
		csg = certificatesv1.UsageCertSign
	)
	node := policytest.NewNode(policytest.Node)
	ips := func(s ...string) []net.IP {
		out := make([]net.IP, len(s))
		for i, v := range s {
			out[i] = net.ParseIP(v)
		}
		return out
	}

	tests := []struct {
		name   string
		modify func(*policytest.Fixture)
		// node replaces the default Node; noNode passes nil instead.
		node        *corev1.Node
		noNode      bool
		policy      Policy
		wantApprove bool
		wantReason  string
		// wantMessage must appear in the decision message.
		wantMessage string
	}{
		{
			name:        "valid serving CSR with DNS and IP SANs",
			wantApprove: true, wantReason: ReasonApproved,
			wantMessage: `node "ip-10-0-0-1.ec2.internal": SANs [DNS:ip-10-0-0-1.ec2.internal, IP:10.0.0.1] match`,
		},
		{
			name: "valid RSA-style usages in another order",
			modify: func(f *policytest.Fixture) {
				f.Usages = usage(sa, ke, ds)
			},
			wantApprove: true, wantReason: ReasonApproved,
		},
		{
			name: "valid with every address type including external and IPv6",
			modify: func(f *policytest.Fixture) {
				f.Request.DNSNames = []string{policytest.Node, "ec2-54-1-2-3.compute-1.amazonaws.com"}
				f.Request.IPAddresses = ips("10.0.0.1", "54.1.2.3", "fd00:ec2::1")
			},
			wantApprove: true, wantReason: ReasonApproved,
		},
		{
			name:        "valid with only an IP SAN",
			modify:      func(f *policytest.Fixture) { f.Request.DNSNames = nil },
			wantApprove: true, wantReason: ReasonApproved,
		},
		{
			name:        "DNS SAN compared case-insensitively",
			modify:      func(f *policytest.Fixture) { f.Request.DNSNames = []string{strings.ToUpper(policytest.Node)} },
			wantApprove: true, wantReason: ReasonApproved,
		},
		{
			name:        "wrong node name in CN",
			modify:      func(f *policytest.Fixture) { f.Request.Subject.CommonName = NodeUserPrefix + policytest.OtherNode },
			wantReason:  ReasonCommonNameMismatch,
			wantMessage: `subject CN "system:node:ip-10-0-0-2.ec2.internal" is not the requester "system:node:ip-10-0-0-1.ec2.internal"`,
		},
		{
			name:        "CN names this node but the requester is another node",
			modify:      func(f *policytest.Fixture) { f.Username = NodeUserPrefix + policytest.OtherNode },
			wantReason:  ReasonCommonNameMismatch,
			wantMessage: `is not the requester "system:node:ip-10-0-0-2.ec2.internal"`,
		},
		{
			name: "CSR consistent for another node but Decide given this node",
			modify: func(f *policytest.Fixture) {
				f.Username = NodeUserPrefix + policytest.OtherNode
				f.Request.Subject.CommonName = NodeUserPrefix + policytest.OtherNode
			},
			wantReason:  ReasonNodeMismatch,
			wantMessage: `node "ip-10-0-0-1.ec2.internal" is not the requester's node "ip-10-0-0-2.ec2.internal"`,
		},
		{
			name: "requester is a bootstrap token",
			modify: func(f *policytest.Fixture) {
				f.Username = "system:bootstrap:abcdef"
				f.Groups = []string{"system:bootstrappers", "system:authenticated"}
			},
			wantReason:  ReasonRequesterNotNode,
			wantMessage: `requester "system:bootstrap:abcdef" is not a node`,
		},
		{
			name: "requester is a service account",
			modify: func(f *policytest.Fixture) {
				f.Username = "system:serviceaccount:kube-system:node-controller"
				f.Groups = []string{"system:serviceaccounts", "system:serviceaccounts:kube-system"}
			},
			wantReason: ReasonRequesterNotNode,
		},
		{
			name:        "requester named like a node but not in system:nodes",
			modify:      func(f *policytest.Fixture) { f.Groups = []string{"system:bootstrappers", "system:authenticated"} },
			wantReason:  ReasonRequesterNotInNodesGroup,
			wantMessage: `not in group system:nodes`,
		},
		{
			name:       "requester with empty node name",
			modify:     func(f *policytest.Fixture) { f.Username = NodeUserPrefix },
			wantReason: ReasonRequesterNotNode,
		},
		{
			name:        "extra DNS SAN not among node addresses",
			modify:      func(f *policytest.Fixture) { f.Request.DNSNames = []string{policytest.Node, "kubernetes.default.svc"} },
			wantReason:  ReasonDNSNameNotNodeAddress,
			wantMessage: `DNS SAN "kubernetes.default.svc" is not an address of node "ip-10-0-0-1.ec2.internal"`,
		},
		{
			name:        "DNS SAN equal to an IP address of the node",
			modify:      func(f *policytest.Fixture) { f.Request.DNSNames = []string{"10.0.0.1"} },
			wantReason:  ReasonDNSNameNotNodeAddress,
			wantMessage: `DNS SAN "10.0.0.1"`,
		},
		{
			name:        "foreign IP SAN",
			modify:      func(f *policytest.Fixture) { f.Request.IPAddresses = ips("10.0.0.1", "10.96.0.1") },
			wantReason:  ReasonIPAddressNotNodeAddress,
			wantMessage: `IP SAN 10.96.0.1 is not an address of node`,
		},
		{
			name:       "node without addresses",
			node:       &corev1.Node{ObjectMeta: node.ObjectMeta},
			wantReason: ReasonDNSNameNotNodeAddress,
		},
		{
			name:        "client auth usage",
			modify:      func(f *policytest.Fixture) { f.Usages = usage(ds, ca) },
			wantReason:  ReasonUsageNotAllowed,
			wantMessage: `usage "client auth" is not allowed`,
		},
		{
			name:        "extra usage besides server auth",
			modify:      func(f *policytest.Fixture) { f.Usages = usage(ds, ke, sa, ca) },
			wantReason:  ReasonUsageNotAllowed,
			wantMessage: `usage "client auth"`,
		},
		{
			name:        "cert sign usage",
			modify:      func(f *policytest.Fixture) { f.Usages = usage(ds, sa, csg) },
			wantReason:  ReasonUsageNotAllowed,
			wantMessage: `usage "cert sign"`,
		},
		{
			name:        "duplicate usages",
			modify:      func(f *policytest.Fixture) { f.Usages = usage(ds, sa, sa) },
			wantReason:  ReasonDuplicateUsage,
			wantMessage: `usage "server auth" is listed more than once`,
		},
		{
			name:        "missing server auth",
			modify:      func(f *policytest.Fixture) { f.Usages = usage(ds, ke) },
			wantReason:  ReasonMissingUsage,
			wantMessage: `usage "server auth" is required`,
		},
		{
			name:        "missing digital signature",
			modify:      func(f *policytest.Fixture) { f.Usages = usage(ke, sa) },
			wantReason:  ReasonMissingUsage,
			wantMessage: `usage "digital signature" is required`,
		},
		{
			name:       "no usages",
			modify:     func(f *policytest.Fixture) { f.Usages = nil },
			wantReason: ReasonMissingUsage,
		},
		{
			name:        "email SAN",
			modify:      func(f *policytest.Fixture) { f.Request.EmailAddresses = []string{"root@example.com"} },
			wantReason:  ReasonEmailSANNotAllowed,
			wantMessage: `"root@example.com"`,
		},
		{
			name: "URI SAN",
			modify: func(f *policytest.Fixture) {
				f.Request.URIs = append(f.Request.URIs, mustParseURL(t, "spiffe://cluster.local/ns/kube-system/sa/x"))
			},
			wantReason:  ReasonURISANNotAllowed,
			wantMessage: `"spiffe://cluster.local/ns/kube-system/sa/x"`,
		},
		{
			name: "otherName SAN hidden next to a valid DNS SAN",
			modify: func(f *policytest.Fixture) {
				f.Request.DNSNames = nil
				f.Request.IPAddresses = nil
				f.Request.ExtraExtensions = []pkix.Extension{otherNameSANExtension(t, policytest.Node)}
			},
			wantReason:  ReasonUnsupportedSANType,
			wantMessage: `GeneralName tags [0]`,
		},
		{
			name: "constructed dNSName hidden next to a valid DNS SAN",
			modify: func(f *policytest.Fixture) {
				f.Request.DNSNames = nil
				f.Request.IPAddresses = nil
				f.Request.ExtraExtensions = []pkix.Extension{constructedSANExtension(t, sanTagDNS, "kubernetes.default.svc", policytest.Node)}
			},
			wantReason:  ReasonMalformedRequest,
			wantMessage: `invalid subjectAltName extension: GeneralName [2] in constructed form`,
		},
		{
			name: "constructed iPAddress hidden next to a valid DNS SAN",
			modify: func(f *policytest.Fixture) {
				f.Request.DNSNames = nil
				f.Request.IPAddresses = nil
				f.Request.ExtraExtensions = []pkix.Extension{constructedSANExtension(t, sanTagIP, "\x0a\x60\x00\x01", policytest.Node)}
			},
			wantReason:  ReasonMalformedRequest,
			wantMessage: `GeneralName [7] in constructed form`,
		},
		{
			name: "no SANs",
			modify: func(f *policytest.Fixture) {
				f.Request.DNSNames = nil
				f.Request.IPAddresses = nil
			},
			wantReason: ReasonNoSubjectAltNames,
		},
		{
			name:        "expiration longer than the policy",
			modify:      func(f *policytest.Fixture) { f.Expiration = int32Ptr(86401) },
			policy:      Policy{MaxExpirationSeconds: 86400},
			wantReason:  ReasonExpirationTooLong,
			wantMessage: `spec.expirationSeconds 86401 exceeds the maximum 86400`,
		},
		{
			name:        "expiration equal to the policy maximum",
			modify:      func(f *policytest.Fixture) { f.Expiration = int32Ptr(86400) },
			policy:      Policy{MaxExpirationSeconds: 86400},
			wantApprove: true, wantReason: ReasonApproved,
		},
		{
			name:        "expiration unset is allowed under a maximum",
			policy:      Policy{MaxExpirationSeconds: 86400},
			wantApprove: true, wantReason: ReasonApproved,
		},
		{
			name:        "expiration shorter than the policy",
			modify:      func(f *policytest.Fixture) { f.Expiration = int32Ptr(600) },
			policy:      Policy{MinExpirationSeconds: 3600},
			wantReason:  ReasonExpirationTooShort,
			wantMessage: `spec.expirationSeconds 600 is below the minimum 3600`,
		},
		{
			name: "bad signature: IP SAN rewritten after signing",
			modify: func(f *policytest.Fixture) {
				// [7] 04 0a000001 -> [7] 04 0a000009, an address the node also has.
				f.Tamper = replaceOnce([]byte{0x87, 4, 10, 0, 0, 1}, []byte{0x87, 4, 10, 0, 0, 9})
			},
			node:       nodeWithExtraAddress(node, corev1.NodeInternalIP, "10.0.0.9"),
			wantReason: ReasonInvalidSignature,
		},
		{
			name:        "wrong organization",
			modify:      func(f *policytest.Fixture) { f.Request.Subject.Organization = []string{NodesGroup, "system:masters"} },
			wantReason:  ReasonOrganizationMismatch,
			wantMessage: `subject O ["system:nodes" "system:masters"] is not exactly ["system:nodes"]`,
		},
		{
			name:       "missing organization",
			modify:     func(f *policytest.Fixture) { f.Request.Subject.Organization = nil },
			wantReason: ReasonOrganizationMismatch,
		},
		{
			name:        "node missing",
			noNode:      true,
			wantReason:  ReasonNodeNotFound,
			wantMessage: `node "ip-10-0-0-1.ec2.internal" not found`,
		},
		{
			name:       "node missing but the CSR is bad anyway",
			modify:     func(f *policytest.Fixture) { f.Usages = usage(ds, ca) },
			noNode:     true,
			wantReason: ReasonUsageNotAllowed,
		},
		{
			name:        "IP inside the allowed CIDRs",
			policy:      Policy{AllowedCIDRs: []netip.Prefix{netip.MustParsePrefix("192.168.0.0/16"), netip.MustParsePrefix("10.0.0.0/24")}},
			wantApprove: true, wantReason: ReasonApproved,
		},
		{
			name:        "node IP outside the allowed CIDRs",
			modify:      func(f *policytest.Fixture) { f.Request.IPAddresses = ips("10.0.0.1", "54.1.2.3") },
			policy:      Policy{AllowedCIDRs: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/16")}},
			wantReason:  ReasonIPAddressOutsideAllowedCIDRs,
			wantMessage: `IP SAN 54.1.2.3 is outside the allowed CIDRs [10.0.0.0/16]`,
		},
		{
			name:        "hostname matching the regex",
			policy:      Policy{HostnameRegex: regexp.MustCompile(`^ip-[0-9-]+\.ec2\.internal$`)},
			wantApprove: true, wantReason: ReasonApproved,
		},
		{
			name: "node hostname not matching the regex",
			modify: func(f *policytest.Fixture) {
				f.Request.DNSNames = []string{policytest.Node, "ec2-54-1-2-3.compute-1.amazonaws.com"}
			},
			policy:      Policy{HostnameRegex: regexp.MustCompile(`^ip-[0-9-]+\.ec2\.internal$`)},
			wantReason:  ReasonDNSNameRejectedByPolicy,
			wantMessage: `DNS SAN "ec2-54-1-2-3.compute-1.amazonaws.com" does not match`,
		},
		{
			name:        "policy violations are found even when the node is missing",
			policy:      Policy{HostnameRegex: regexp.MustCompile(`^worker-`)},
			noNode:      true,
			wantReason:  ReasonDNSNameRejectedByPolicy,
			wantMessage: `DNS SAN "ip-10-0-0-1.ec2.internal"`,
		},
		{
			name:        "client kubelet signer is ignored",
			modify:      func(f *policytest.Fixture) { f.Signer = certificatesv1.KubeAPIServerClientKubeletSignerName },
			wantReason:  ReasonSignerNotHandled,
			wantMessage: `signer "kubernetes.io/kube-apiserver-client-kubelet" is not "kubernetes.io/kubelet-serving"`,
		},
		{
			name: "custom signer with an otherwise bad CSR is ignored",
			modify: func(f *policytest.Fixture) {
				f.Signer = "example.com/serving"
				f.Username = "system:serviceaccount:default:x"
			},
			wantReason: ReasonSignerNotHandled,
		},
		{
			name: "already approved",
			modify: func(f *policytest.Fixture) {
				f.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue}}
			},
			wantReason:  ReasonAlreadyDecided,
			wantMessage: "condition Approved",
		},
		{
			name: "already denied",
			modify: func(f *policytest.Fixture) {
				f.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateDenied, Status: corev1.ConditionTrue}}
			},
			wantReason:  ReasonAlreadyDecided,
			wantMessage: "condition Denied",
		},
		{
			name:       "already issued",
			modify:     func(f *policytest.Fixture) { f.Status.Certificate = []byte("issued") },
			wantReason: ReasonAlreadyDecided,
		},
		{
			name:        "request is not PEM",
			modify:      func(f *policytest.Fixture) { f.RawRequest = []byte("not a CSR") },
			wantReason:  ReasonMalformedRequest,
			wantMessage: "no PEM block",
		},
		{
			name: "request is a PEM certificate",
			modify: func(f *policytest.Fixture) {
				f.RawRequest = []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
			},
			wantReason:  ReasonMalformedRequest,
			wantMessage: `PEM block is not a CERTIFICATE REQUEST: got "CERTIFICATE"`,
		},
		{
			name: "request with a second PEM block",
			modify: func(f *policytest.Fixture) {
				one := policytest.SignRequest(t, policytest.ValidFixture().Request, nil, nil)
				f.RawRequest = append(one, one...)
			},
			wantReason:  ReasonMalformedRequest,
			wantMessage: "data after the CERTIFICATE REQUEST block",
		},
		{
			name: "request with text before the PEM block",
			modify: func(f *policytest.Fixture) {
				f.RawRequest = append([]byte("garbage\n"), policytest.SignRequest(t, f.Request, nil, nil)...)
			},
			wantReason:  ReasonMalformedRequest,
			wantMessage: "data before the CERTIFICATE REQUEST block",
		},
		{
			name: "request behind a PEM block that does not decode",
			modify: func(f *policytest.Fixture) {
				broken := []byte("-----BEGIN CERTIFICATE REQUEST-----\n!!!\n-----END CERTIFICATE REQUEST-----\n")
				f.RawRequest = append(broken, policytest.SignRequest(t, f.Request, nil, nil)...)
			},
			wantReason:  ReasonMalformedRequest,
			wantMessage: "data before the CERTIFICATE REQUEST block",
		},
		{
			name: "request with PEM headers",
			modify: func(f *policytest.Fixture) {
				signed := policytest.SignRequest(t, f.Request, nil, nil)
				f.RawRequest = bytes.Replace(signed, []byte("-----\n"), []byte("-----\nProc-Type: 4,ENCRYPTED\n\n"), 1)
			},
			wantReason:  ReasonMalformedRequest,
			wantMessage: "PEM headers in the CERTIFICATE REQUEST block",
		},
		{
			name: "request surrounded by white space",
			modify: func(f *policytest.Fixture) {
				f.RawRequest = append(append([]byte("\n \t\r\n"), policytest.SignRequest(t, f.Request, nil, nil)...), "\n\n"...)
			},
			wantApprove: true, wantReason: ReasonApproved,
		},
		{
			name: "PEM block with garbage DER",
			modify: func(f *policytest.Fixture) {
				f.RawRequest = []byte("-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n")
			},
			wantReason:  ReasonMalformedRequest,
			wantMessage: "invalid PKCS#10 request",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := policytest.ValidFixture()
			if tc.modify != nil {
				tc.modify(&f)
			}
			n := node
			switch {
			case tc.noNode:
				n = nil
			case tc.node != nil:
				n = tc.node
			}
			got := Decide(policytest.NewCSR(t, f), n, InventoryAnswer{}, tc.policy)
			if got.Approve != tc.wantApprove || got.Reason != tc.wantReason {
				t.Fatalf("Decide() = {Approve:%v Reason:%s}, want {Approve:%v Reason:%s}; message: %s",
					got.Approve, got.Reason, tc.wantApprove, tc.wantReason, got.Message)
			}
			if !strings.Contains(got.Message, tc.wantMessage) {
				t.Errorf("Decide() message = %q, want it to contain %q", got.Message, tc.wantMessage)
			}
		})
	}
}

func TestDecideNilCSRIsSkipped(t *testing.T) {
	got := Decide(nil, nil, InventoryAnswer{}, Policy{})
	want := Decision{Reason: ReasonSignerNotHandled, Message: "no CSR"}
	if got != want {
		t.Fatalf("Decide(nil) = %+v, want %+v", got, want)
	}
	if !got.Skipped() || got.Denied() {
		t.Fatalf("Decide(nil): Skipped()=%v Denied()=%v, want true, false", got.Skipped(), got.Denied())
	}
}

func TestDecisionPredicates(t *testing.T) {
	tests := []struct {
		name                                             string
		d                                                Decision
		wantSkipped, wantMissing, wantMismatch, wantDeny bool
	}{
		{name: "approved", d: Decision{Approve: true, Reason: ReasonApproved}},
		{name: "other signer", d: Decision{Reason: ReasonSignerNotHandled}, wantSkipped: true},
		{name: "already decided", d: Decision{Reason: ReasonAlreadyDecided}, wantSkipped: true},
		{name: "node missing", d: Decision{Reason: ReasonNodeNotFound}, wantMissing: true, wantDeny: true},
		{name: "DNS name not a node address", d: Decision{Reason: ReasonDNSNameNotNodeAddress}, wantMismatch: true, wantDeny: true},
		{name: "IP not a node address", d: Decision{Reason: ReasonIPAddressNotNodeAddress}, wantMismatch: true, wantDeny: true},
		{name: "denied", d: Decision{Reason: ReasonInvalidSignature}, wantDeny: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.d.Skipped(); got != tc.wantSkipped {
				t.Errorf("Skipped() = %v, want %v", got, tc.wantSkipped)
			}
			if got := tc.d.NodeMissing(); got != tc.wantMissing {
				t.Errorf("NodeMissing() = %v, want %v", got, tc.wantMissing)
			}
			if got := tc.d.NodeAddressMismatch(); got != tc.wantMismatch {
				t.Errorf("NodeAddressMismatch() = %v, want %v", got, tc.wantMismatch)
			}
			if got := tc.d.Denied(); got != tc.wantDeny {
				t.Errorf("Denied() = %v, want %v", got, tc.wantDeny)
			}
		})
	}
}

func nodeWithExtraAddress(n *corev1.Node, typ corev1.NodeAddressType, addr string) *corev1.Node {
	out := n.DeepCopy()
	out.Status.Addresses = append(out.Status.Addresses, corev1.NodeAddress{Type: typ, Address: addr})
	return out
}

// otherNameSANExtension builds a subjectAltName extension holding a UPN
// otherName and a DNS name, the kind of SAN crypto/x509 silently skips.
func otherNameSANExtension(t testing.TB, dns string) pkix.Extension {
	t.Helper()
	upnOID := asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 311, 20, 2, 3}
	oid, err := asn1.Marshal(upnOID)
	if err != nil {
		t.Fatal(err)
	}
	value, err := asn1.MarshalWithParams("admin@example.com", "utf8")
	if err != nil {
		t.Fatal(err)
	}
	explicit, err := asn1.Marshal(asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true, Bytes: value})
	if err != nil {
		t.Fatal(err)
	}
	names := []asn1.RawValue{
		{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true, Bytes: append(oid, explicit...)},
		{Class: asn1.ClassContextSpecific, Tag: sanTagDNS, Bytes: []byte(dns)},
	}
	der, err := asn1.Marshal(names)
	if err != nil {
		t.Fatal(err)
	}
	return pkix.Extension{Id: oidSubjectAltName, Value: der}
}

// constructedSANExtension builds a subjectAltName extension holding a
// GeneralName of the given tag in constructed form, wrapping value as an
// IA5String (crypto/x509 skips such an entry), and a DNS name.
func constructedSANExtension(t testing.TB, tag int, value, dns string) pkix.Extension {
	t.Helper()
	inner, err := asn1.Marshal(asn1.RawValue{Class: asn1.ClassUniversal, Tag: asn1.TagIA5String, Bytes: []byte(value)})
	if err != nil {
		t.Fatal(err)
	}
	names := []asn1.RawValue{
		{Class: asn1.ClassContextSpecific, Tag: tag, IsCompound: true, Bytes: inner},
		{Class: asn1.ClassContextSpecific, Tag: sanTagDNS, Bytes: []byte(dns)},
	}
	der, err := asn1.Marshal(names)
	if err != nil {
		t.Fatal(err)
	}
	return pkix.Extension{Id: oidSubjectAltName, Value: der}
}
