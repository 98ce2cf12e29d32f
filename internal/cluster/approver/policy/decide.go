package policy

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"fmt"
	"slices"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/nodeboot/nodeboot/internal/aws/ec2/ec2instance"
)

const (
	// NodeUserPrefix prefixes the username of every kubelet.
	NodeUserPrefix = "system:node:"
	// NodesGroup is the group every kubelet belongs to.
	NodesGroup = "system:nodes"
)

// candidate is the state the checks of Decide share. Earlier checks fill
// the fields later checks read.
type candidate struct {
	csr       *certificatesv1.CertificateSigningRequest
	node      *corev1.Node
	inventory InventoryAnswer
	policy    Policy
	nodeName  string                   // set by checkRequester
	req       *x509.CertificateRequest // set by checkRequestParses
	instance  *ec2instance.Instance    // set by checkInstance when the inventory is checked
}

// check inspects a candidate and returns a non-nil Decision to stop there.
type check func(*candidate) *Decision

// checkGroups run in order, each check in order; the first Decision wins.
// Checks that do not need the Node come first so that a bad CSR is denied
// without waiting for its Node, and checks that need the inventory's answer
// after every other check that can deny without it, so that a bad CSR costs
// no EC2 call. (Groups rather than one concatenated list, so that nothing
// runs at package init.)
var checkGroups = [][]check{localChecks, inventoryChecks, nodeAddressChecks}

// localChecks read only the CSR, the Node's existence and the policy.
var localChecks = slices.Concat(formChecks, []check{checkSignature}, claimChecks)

// unsignedLocalChecks are localChecks without checkSignature (NeedsInventory).
var unsignedLocalChecks = slices.Concat(formChecks, claimChecks)

// formChecks and claimChecks are localChecks but the signature's:
// NeedsInventory runs them to spare EC2 the CSRs denied for themselves.
// The signature, the one check that costs (an ECDSA or RSA verification,
// tens of microseconds), is verified once, by Decide: a CSR a node's own
// credential sent with a bad signature costs a share of one batched
// lookup of that node's instance.
var (
	formChecks = []check{
		checkRequester,
		checkRequestSize,
		checkRequestParses,
		checkSANCount,
		checkPublicKey,
		checkSignatureAlgorithm,
	}
	claimChecks = []check{
		checkSubject,
		checkUsages,
		checkExpiration,
		checkSANTypes,
		checkSANPresent,
		checkDNSNameSyntax,
		checkIPAddressKinds,
		checkPolicyDNSNames,
		checkPolicyIPAddresses,
		checkNodeExists,
	}
)

// inventoryChecks read the inventory's answer; they run before the Node's
// addresses are compared, so that a Node status the node rewrote does not
// decide the reason.
var inventoryChecks = []check{
	checkInstance,
	checkDNSNamesBelongToInstance,
	checkIPAddressesBelongToInstance,
}

// nodeAddressChecks compare the SANs with the Node's status addresses.
var nodeAddressChecks = []check{
	checkDNSNamesBelongToNode,
	checkIPAddressesBelongToNode,
}

// Decide returns whether csr should be approved. node is the Node named by
// the requester, or nil when it does not exist; inv is the EC2 inventory's
// answer for that Node (see InstanceKeyFor), read only when p.Inventory is
// InventoryEC2. Decide is pure: it reads only its arguments.
//
// CSRs for other signers and CSRs already approved, denied, failed or
// issued yield a Decision whose Skipped method is true. A CSR that passes
// every check except that node is nil yields ReasonNodeNotFound. The
// inventory is checked before the Node's addresses: the SANs must belong to
// the EC2 instance, whatever the Node's status says.
func Decide(csr *certificatesv1.CertificateSigningRequest, node *corev1.Node, inv InventoryAnswer, p Policy) Decision {
	d := decide(csr, node, inv, p)
	d.Message = capMessage(d.Message)
	return d
}

func decide(csr *certificatesv1.CertificateSigningRequest, node *corev1.Node, inv InventoryAnswer, p Policy) Decision {
	if d := precondition(csr); d != nil {
		return *d
	}
	c := &candidate{csr: csr, node: node, inventory: inv, policy: p}
	for _, group := range checkGroups {
		for _, run := range group {
			if d := run(c); d != nil {
				return *d
			}
		}
	}
	if c.instance != nil {
		return approve("kubelet serving certificate for node %q: SANs %s match the node's addresses and EC2 instance %s",
			c.nodeName, describeSANs(c.req), c.instance.ID)
	}
	return approve("kubelet serving certificate for node %q: SANs %s match the node's addresses",
		c.nodeName, describeSANs(c.req))
}

// NeedsInventory reports whether Decide will read the inventory's answer
// for csr: the check is on, the CSR is undecided, and every check that can
// deny it without the answer passes (the Node exists), the signature's
// aside (unsignedLocalChecks). Otherwise Decide decides without the
// answer, so the caller need not ask EC2.
func NeedsInventory(csr *certificatesv1.CertificateSigningRequest, node *corev1.Node, p Policy) bool {
	if p.Inventory != InventoryEC2 || precondition(csr) != nil {
		return false
	}
	c := &candidate{csr: csr, node: node, policy: p}
	for _, run := range unsignedLocalChecks {
		if run(c) != nil {
			return false
		}
	}
	return true
}

// Pending reports whether csr is a kubelet serving CSR not yet approved,
// denied, failed or issued: one that Decide decides rather than skips.
func Pending(csr *certificatesv1.CertificateSigningRequest) bool {
	return precondition(csr) == nil
}

// precondition skips CSRs that are not ours or already decided.
func precondition(csr *certificatesv1.CertificateSigningRequest) *Decision {
	if csr == nil {
		d := skip(ReasonSignerNotHandled, "no CSR")
		return &d
	}
	if csr.Spec.SignerName != certificatesv1.KubeletServingSignerName {
		d := skip(ReasonSignerNotHandled, "signer %q is not %q", csr.Spec.SignerName, certificatesv1.KubeletServingSignerName)
		return &d
	}
	if t, ok := decidedCondition(csr.Status); ok {
		d := skip(ReasonAlreadyDecided, "CSR already has condition %s", t)
		return &d
	}
	if len(csr.Status.Certificate) > 0 {
		d := skip(ReasonAlreadyDecided, "CSR already has a certificate")
		return &d
	}
	return nil
}

func decidedCondition(status certificatesv1.CertificateSigningRequestStatus) (certificatesv1.RequestConditionType, bool) {
	for _, c := range status.Conditions {
		switch c.Type {
		case certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed:
			return c.Type, true
		}
	}
	return "", false
}

func checkRequester(c *candidate) *Decision {
	user := c.csr.Spec.Username
	name, ok := RequesterNodeName(user)
	if !ok {
		d := deny(ReasonRequesterNotNode, "requester %q is not a node (want %s<node name>)", user, NodeUserPrefix)
		return &d
	}
	if !slices.Contains(c.csr.Spec.Groups, NodesGroup) {
		d := deny(ReasonRequesterNotInNodesGroup, "requester %q is not in group %s (groups %q)", user, NodesGroup, c.csr.Spec.Groups)
		return &d
	}
	if problems := validation.IsDNS1123Subdomain(name); len(problems) > 0 {
		d := deny(ReasonInvalidNodeName, "requester %q names no valid Node: %s", user, strings.Join(problems, "; "))
		return &d
	}
	c.nodeName = name
	return nil
}

func checkRequestSize(c *candidate) *Decision {
	if n := len(c.csr.Spec.Request); n > MaxRequestBytes {
		d := deny(ReasonRequestTooLarge, "spec.request is %d bytes, more than the %d a kubelet serving request needs", n, MaxRequestBytes)
		return &d
	}
	return nil
}

// checkSANCount bounds the SANs before any check reads them one by one.
func checkSANCount(c *candidate) *Decision {
	limit := c.policy.MaxSANs
	if limit <= 0 {
		limit = DefaultMaxSANs
	}
	r := c.req
	if n := len(r.DNSNames) + len(r.IPAddresses) + len(r.EmailAddresses) + len(r.URIs); n > limit {
		d := deny(ReasonTooManySANs, "the request has %d SANs, more than the %d allowed", n, limit)
		return &d
	}
	return nil
}

// RequesterNodeName returns <name> and true for a username
// system:node:<name>, and "", false for any other username (system:node:
// alone included).
func RequesterNodeName(user string) (string, bool) {
	name, ok := strings.CutPrefix(user, NodeUserPrefix)
	if !ok || name == "" {
		return "", false
	}
	return name, true
}

func checkRequestParses(c *candidate) *Decision {
	req, err := ParseRequest(c.csr.Spec.Request)
	if err != nil {
		d := deny(ReasonMalformedRequest, "spec.request: %v", err)
		return &d
	}
	c.req = req
	return nil
}

func checkSignature(c *candidate) *Decision {
	if err := c.req.CheckSignature(); err != nil {
		d := deny(ReasonInvalidSignature, "x509 request signature does not verify: %v", err)
		return &d
	}
	return nil
}

func checkSubject(c *candidate) *Decision {
	want := NodeUserPrefix + c.nodeName
	if cn := c.req.Subject.CommonName; cn != want {
		d := deny(ReasonCommonNameMismatch, "subject CN %q is not the requester %q", cn, want)
		return &d
	}
	if org := c.req.Subject.Organization; !slices.Equal(org, []string{NodesGroup}) {
		d := deny(ReasonOrganizationMismatch, "subject O %q is not exactly [%q]", org, NodesGroup)
		return &d
	}
	if extra := unexpectedSubjectAttributes(c.req.Subject); len(extra) > 0 {
		d := deny(ReasonUnexpectedSubjectAttribute, "the subject must be exactly CN=%s, O=%s; it also has %s",
			want, NodesGroup, strings.Join(extra, ", "))
		return &d
	}
	return nil
}

// Object identifiers of the two subject attributes a kubelet serving
// request holds.
var (
	oidCommonName   = asn1.ObjectIdentifier{2, 5, 4, 3}
	oidOrganization = asn1.ObjectIdentifier{2, 5, 4, 10}
)

// maxListedAttributes bounds the attributes a denial names.
const maxListedAttributes = 5

// unexpectedSubjectAttributes names the subject's attributes beyond one CN
// and one O (organizational units, countries, serial numbers, ...), as
// type=value; crypto/x509 parses every attribute of the subject into Names.
func unexpectedSubjectAttributes(subject pkix.Name) []string {
	var extra []string
	seenCN, seenO := false, false
	for _, atv := range subject.Names {
		switch {
		case atv.Type.Equal(oidCommonName) && !seenCN:
			seenCN = true
		case atv.Type.Equal(oidOrganization) && !seenO:
			seenO = true
		default:
			extra = append(extra, fmt.Sprintf("%s=%q", attributeName(atv.Type), fmt.Sprint(atv.Value)))
		}
	}
	if len(extra) > maxListedAttributes {
		extra = append(extra[:maxListedAttributes], fmt.Sprintf("and %d more", len(extra)-maxListedAttributes))
	}
	return extra
}

// attributeNames are the short names of common subject attributes.
var attributeNames = map[string]string{
	"2.5.4.3": "CN", "2.5.4.5": "SERIALNUMBER", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST",
	"2.5.4.9": "STREET", "2.5.4.10": "O", "2.5.4.11": "OU", "2.5.4.17": "POSTALCODE",
}

func attributeName(oid asn1.ObjectIdentifier) string {
	if name, ok := attributeNames[oid.String()]; ok {
		return name
	}
	return oid.String()
}

func checkExpiration(c *candidate) *Decision {
	requested := c.csr.Spec.ExpirationSeconds
	if requested == nil {
		return nil
	}
	if limit := c.policy.MaxExpirationSeconds; limit > 0 && *requested > limit {
		d := deny(ReasonExpirationTooLong, "spec.expirationSeconds %d exceeds the maximum %d", *requested, limit)
		return &d
	}
	if limit := c.policy.MinExpirationSeconds; limit > 0 && *requested < limit {
		d := deny(ReasonExpirationTooShort, "spec.expirationSeconds %d is below the minimum %d", *requested, limit)
		return &d
	}
	return nil
}

func checkNodeExists(c *candidate) *Decision {
	if c.node == nil {
		d := deny(ReasonNodeNotFound, "node %q not found", c.nodeName)
		return &d
	}
	if c.node.Name != c.nodeName {
		d := deny(ReasonNodeMismatch, "node %q is not the requester's node %q", c.node.Name, c.nodeName)
		return &d
	}
	return nil
}
