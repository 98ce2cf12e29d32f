package policy

import (
	"fmt"
	"net/netip"
	"regexp"
	"unicode/utf8"
)

// Decision is the outcome of Decide for one CSR.
type Decision struct {
	// Approve is true when the CSR should be approved.
	Approve bool
	// Reason is a CamelCase reason for the Approved or Denied condition;
	// it is one of the Reason* constants.
	Reason string
	// Message explains the decision to a human.
	Message string
}

// Skipped reports whether the CSR is not this approver's business (another
// signer) or already decided: nothing must be written for it.
func (d Decision) Skipped() bool {
	return d.Reason == ReasonSignerNotHandled || d.Reason == ReasonAlreadyDecided
}

// NodeMissing reports whether every check that does not need the Node
// passed but the Node does not exist (yet). The caller may wait for the
// Node to register and decide again, and deny once it gives up.
func (d Decision) NodeMissing() bool {
	return d.Reason == ReasonNodeNotFound
}

// NodeAddressMismatch reports whether the CSR claims a DNS name or IP that
// is not (yet) among the Node's addresses. A Node registers before a cloud
// controller manager or the kubelet fills its addresses, so a young Node may
// still gain the address.
func (d Decision) NodeAddressMismatch() bool {
	return d.Reason == ReasonDNSNameNotNodeAddress || d.Reason == ReasonIPAddressNotNodeAddress
}

// InventoryTransient reports whether the EC2 inventory could not be asked
// for a reason that may pass (throttling, 5xx, timeout). The caller may
// decide again later, and deny once it gives up.
func (d Decision) InventoryTransient() bool {
	return d.Reason == ReasonInventoryUnreachable
}

// Denied reports whether the CSR must be denied.
func (d Decision) Denied() bool {
	return !d.Approve && !d.Skipped()
}

// Policy holds the operator's extra constraints. The zero Policy adds no
// constraint beyond the built-in rules.
type Policy struct {
	// AllowedCIDRs, when not empty, must contain every IP SAN.
	AllowedCIDRs []netip.Prefix
	// HostnameRegex, when not nil, must match every DNS SAN. It is applied
	// with MatchString, so anchor it to require a full match.
	HostnameRegex *regexp.Regexp
	// MaxExpirationSeconds, when not 0, bounds spec.expirationSeconds from
	// above when the CSR sets it.
	MaxExpirationSeconds int32
	// MinExpirationSeconds, when not 0, bounds spec.expirationSeconds from
	// below when the CSR sets it.
	MinExpirationSeconds int32
	// Inventory says whether the SANs must also be addresses of the EC2
	// instance behind the Node.
	Inventory InventoryMode
	// InventoryProblem says why Inventory is InventoryUnavailable and what
	// fixes it; it ends the denial message of every CSR.
	InventoryProblem string
	// MaxSANs, when not 0, bounds the number of SANs of a request; 0 means
	// DefaultMaxSANs.
	MaxSANs int
}

// Bounds on what a request may hold and on what a decision writes.
const (
	// DefaultMaxSANs is the default of Policy.MaxSANs: a kubelet asks for
	// its node's addresses (host name, private and public DNS names and
	// IPs, IPv6), a dozen on a node with several interfaces.
	DefaultMaxSANs = 64
	// MaxRequestBytes bounds spec.request: a kubelet's request is under
	// 1 KiB; a large one is parsed by nobody.
	MaxRequestBytes = 16 << 10
	// MaxMessageBytes bounds a decision's message, which is written into
	// the CSR's condition, Events and logs.
	MaxMessageBytes = 1024
)

// Reasons written into the CSR condition, Events and metrics.
const (
	// ReasonApproved: every rule passed.
	ReasonApproved = "AutoApproved"

	// ReasonSignerNotHandled: the CSR is for another signer and is ignored.
	ReasonSignerNotHandled = "SignerNotHandled"
	// ReasonAlreadyDecided: the CSR is already approved, denied, failed or
	// issued and is ignored.
	ReasonAlreadyDecided = "AlreadyDecided"

	// ReasonRequesterNotNode: spec.username is not system:node:<name>.
	ReasonRequesterNotNode = "RequesterNotNode"
	// ReasonRequesterNotInNodesGroup: spec.groups lacks system:nodes.
	ReasonRequesterNotInNodesGroup = "RequesterNotInNodesGroup"
	// ReasonMalformedRequest: spec.request is not one PEM CERTIFICATE
	// REQUEST block, without headers and with nothing but white space
	// around it, holding a parseable PKCS#10 request.
	ReasonMalformedRequest = "MalformedRequest"
	// ReasonWeakKey: the request's public key is too weak (RSA under 2048
	// bits, an ECDSA curve other than P-256, P-384 and P-521).
	ReasonWeakKey = "WeakKey"
	// ReasonUnsupportedKeyType: the request's public key is neither RSA,
	// ECDSA nor Ed25519 (DSA, for example).
	ReasonUnsupportedKeyType = "UnsupportedKeyType"
	// ReasonWeakSignatureAlgorithm: the request is signed with an algorithm
	// other than RSA PKCS#1 v1.5 or PSS with SHA-256/384/512, ECDSA with
	// SHA-256/384/512 and Ed25519 (SHA-1 and MD5, for example).
	ReasonWeakSignatureAlgorithm = "WeakSignatureAlgorithm"
	// ReasonInvalidSignature: the PKCS#10 signature does not verify.
	ReasonInvalidSignature = "InvalidSignature"
	// ReasonCommonNameMismatch: the subject CN is not the requester.
	ReasonCommonNameMismatch = "CommonNameMismatch"
	// ReasonOrganizationMismatch: the subject O is not exactly [system:nodes].
	ReasonOrganizationMismatch = "OrganizationMismatch"
	// ReasonUnexpectedSubjectAttribute: the subject holds an attribute
	// other than one CN and one O (an OU, a country, a second CN, ...).
	ReasonUnexpectedSubjectAttribute = "UnexpectedSubjectAttribute"
	// ReasonInvalidNodeName: the requester's node name is not a valid
	// Node name (control characters, upper case, too long, ...).
	ReasonInvalidNodeName = "InvalidNodeName"
	// ReasonRequestTooLarge: spec.request exceeds MaxRequestBytes.
	ReasonRequestTooLarge = "RequestTooLarge"
	// ReasonTooManySANs: the request has more SANs than Policy.MaxSANs.
	ReasonTooManySANs = "TooManySANs"
	// ReasonDuplicateUsage: spec.usages repeats a usage.
	ReasonDuplicateUsage = "DuplicateUsage"
	// ReasonUsageNotAllowed: spec.usages holds a usage a serving
	// certificate must not have (client auth, cert sign, ...).
	ReasonUsageNotAllowed = "UsageNotAllowed"
	// ReasonMissingUsage: spec.usages lacks server auth or digital signature.
	ReasonMissingUsage = "MissingUsage"
	// ReasonExpirationTooLong: spec.expirationSeconds exceeds the policy.
	ReasonExpirationTooLong = "ExpirationTooLong"
	// ReasonExpirationTooShort: spec.expirationSeconds is below the policy.
	ReasonExpirationTooShort = "ExpirationTooShort"
	// ReasonEmailSANNotAllowed: the request has an email SAN.
	ReasonEmailSANNotAllowed = "EmailSANNotAllowed"
	// ReasonURISANNotAllowed: the request has a URI SAN.
	ReasonURISANNotAllowed = "URISANNotAllowed"
	// ReasonUnsupportedSANType: the request has a SAN that is neither DNS,
	// IP, email nor URI (otherName, directoryName, ...).
	ReasonUnsupportedSANType = "UnsupportedSANType"
	// ReasonNoSubjectAltNames: the request has neither DNS nor IP SANs.
	ReasonNoSubjectAltNames = "NoSubjectAltNames"
	// ReasonInvalidDNSName: a DNS SAN is not a host name (a wildcard,
	// control characters, an empty label, a trailing dot, ...).
	ReasonInvalidDNSName = "InvalidDNSName"
	// ReasonIPAddressNotGlobalUnicast: an IP SAN is unspecified, loopback,
	// link-local, multicast or the IPv4 broadcast address.
	ReasonIPAddressNotGlobalUnicast = "IPAddressNotGlobalUnicast"
	// ReasonDNSNameRejectedByPolicy: a DNS SAN does not match the hostname
	// regex.
	ReasonDNSNameRejectedByPolicy = "DNSNameRejectedByPolicy"
	// ReasonIPAddressOutsideAllowedCIDRs: an IP SAN is outside every
	// allowed CIDR.
	ReasonIPAddressOutsideAllowedCIDRs = "IPAddressOutsideAllowedCIDRs"
	// ReasonNodeNotFound: the requester's Node object does not exist.
	ReasonNodeNotFound = "NodeNotFound"
	// ReasonNodeMismatch: the Node given to Decide is not the requester.
	ReasonNodeMismatch = "NodeMismatch"
	// ReasonInventoryUnavailable: the inventory check is required but the
	// approver cannot run it (no region, the cluster's VPC unknown).
	ReasonInventoryUnavailable = "InventoryUnavailable"
	// ReasonNotEC2Instance: the inventory check is on and the Node's
	// providerID does not name an EC2 instance.
	ReasonNotEC2Instance = "NotEC2Instance"
	// ReasonInventoryUnreachable: the EC2 lookup failed for a reason that
	// may pass (throttling, 5xx, timeout) for as long as the approver
	// waits.
	ReasonInventoryUnreachable = "InventoryUnreachable"
	// ReasonInventoryLookupFailed: the EC2 lookup failed for a reason that
	// needs a change first (access denied, for example).
	ReasonInventoryLookupFailed = "InventoryLookupFailed"
	// ReasonInstanceNotFound: EC2 knows no instance for the Node.
	ReasonInstanceNotFound = "InstanceNotFound"
	// ReasonInstanceNotRunning: the Node's instance is not running
	// (stopped, terminated, ...).
	ReasonInstanceNotRunning = "InstanceNotRunning"
	// ReasonAmbiguousInstance: several running instances have the node
	// name as private DNS name and the Node has no providerID.
	ReasonAmbiguousInstance = "AmbiguousInstance"
	// ReasonInstanceMismatch: the instance the providerID names is not the
	// node's (another private DNS name, another availability zone).
	ReasonInstanceMismatch = "InstanceMismatch"
	// ReasonInstanceOutsideClusterVPC: the Node's instance is not in the
	// cluster's VPC.
	ReasonInstanceOutsideClusterVPC = "InstanceOutsideClusterVPC"
	// ReasonInstanceOutsideClusterAccount: the Node's instance belongs to
	// another AWS account than the cluster.
	ReasonInstanceOutsideClusterAccount = "InstanceOutsideClusterAccount"
	// ReasonDNSNameNotInstanceAddress: a DNS SAN is neither the private
	// nor the public DNS name nor the ID of the Node's EC2 instance.
	ReasonDNSNameNotInstanceAddress = "DNSNameNotInstanceAddress"
	// ReasonIPAddressNotInstanceAddress: an IP SAN is not an address of the
	// Node's EC2 instance.
	ReasonIPAddressNotInstanceAddress = "IPAddressNotInstanceAddress"
	// ReasonIPAddressNotPrimary: an IP SAN is a secondary address of the
	// Node's EC2 instance (a secondary private IPv4, an address of another
	// network interface): a pod address under the VPC CNI, not the node's.
	ReasonIPAddressNotPrimary = "IPAddressNotPrimary"
	// ReasonDNSNameNotNodeAddress: a DNS SAN is not among the Node's
	// Hostname, InternalDNS or ExternalDNS addresses.
	ReasonDNSNameNotNodeAddress = "DNSNameNotNodeAddress"
	// ReasonIPAddressNotNodeAddress: an IP SAN is not among the Node's
	// InternalIP or ExternalIP addresses.
	ReasonIPAddressNotNodeAddress = "IPAddressNotNodeAddress"
)

// unavailableReason says why the inventory check cannot run.
func unavailableReason(p Policy) string {
	if p.InventoryProblem != "" {
		return p.InventoryProblem
	}
	return "the approver has no EC2 inventory; give it a region and the cluster's name, or turn the check off with --ec2-inventory=off"
}

// capMessage cuts a message to MaxMessageBytes at a rune boundary, saying
// how much it left out.
func capMessage(msg string) string {
	if len(msg) <= MaxMessageBytes {
		return msg
	}
	const suffix = " … (%d more bytes)"
	cut := MaxMessageBytes - len(suffix) - 8
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + fmt.Sprintf(suffix, len(msg)-cut)
}

func approve(format string, args ...any) Decision {
	return Decision{Approve: true, Reason: ReasonApproved, Message: fmt.Sprintf(format, args...)}
}

func deny(reason, format string, args ...any) Decision {
	return Decision{Reason: reason, Message: fmt.Sprintf(format, args...)}
}

func skip(reason, format string, args ...any) Decision {
	return Decision{Reason: reason, Message: fmt.Sprintf(format, args...)}
}
