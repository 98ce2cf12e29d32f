package policy

import (
	"crypto/x509"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

func checkSANTypes(c *candidate) *Decision {
	if len(c.req.EmailAddresses) > 0 {
		d := deny(ReasonEmailSANNotAllowed, "email SANs are not allowed: %q", c.req.EmailAddresses)
		return &d
	}
	if len(c.req.URIs) > 0 {
		uris := make([]string, len(c.req.URIs))
		for i, u := range c.req.URIs {
			uris[i] = u.String()
		}
		d := deny(ReasonURISANNotAllowed, "URI SANs are not allowed: %q", uris)
		return &d
	}
	tags, err := unsupportedSANTags(c.req.Extensions)
	if err != nil {
		d := deny(ReasonMalformedRequest, "spec.request: %v", err)
		return &d
	}
	if len(tags) > 0 {
		d := deny(ReasonUnsupportedSANType, "SANs of GeneralName tags %v are not allowed; only DNS and IP SANs are", tags)
		return &d
	}
	return nil
}

func checkSANPresent(c *candidate) *Decision {
	if len(c.req.DNSNames) == 0 && len(c.req.IPAddresses) == 0 {
		d := deny(ReasonNoSubjectAltNames, "the request has no DNS or IP SAN")
		return &d
	}
	return nil
}

// checkDNSNameSyntax denies DNS SANs that are no host name: wildcards,
// control characters, empty labels, a trailing dot. crypto/x509 accepts any
// ASCII in a dNSName, and with the inventory check off a node may write any
// of these into its own status.addresses; a wildcard would cover every
// node's name. Case is ignored, as DNS and TLS ignore it.
func checkDNSNameSyntax(c *candidate) *Decision {
	for _, name := range c.req.DNSNames {
		if strings.Contains(name, "*") {
			d := deny(ReasonInvalidDNSName, "DNS SAN %q is a wildcard; a node serves only its own names", name)
			return &d
		}
		if len(validation.IsDNS1123Subdomain(strings.ToLower(name))) > 0 {
			d := deny(ReasonInvalidDNSName, "DNS SAN %q is not a host name: letters, digits, '-' and '.' only, "+
				"labels neither empty nor starting or ending with '-', no trailing dot, at most %d bytes",
				name, validation.DNS1123SubdomainMaxLength)
			return &d
		}
	}
	return nil
}

// checkIPAddressKinds denies IP SANs no node owns alone: unspecified,
// loopback, link-local (169.254.169.254, the instance metadata service,
// among them), multicast and the IPv4 broadcast address. EC2 reports none
// of them, but with the inventory check off a node may list them in its
// own status.
func checkIPAddressKinds(c *candidate) *Decision {
	for _, ip := range c.req.IPAddresses {
		addr, _ := sanAddr(ip)
		if !addr.IsGlobalUnicast() {
			d := deny(ReasonIPAddressNotGlobalUnicast, "IP SAN %s is %s, not an address a node owns", ip, addrKind(addr))
			return &d
		}
	}
	return nil
}

// addrKind names why addr is not a global unicast address.
func addrKind(addr netip.Addr) string {
	switch {
	case addr.IsUnspecified():
		return "unspecified"
	case addr.IsLoopback():
		return "a loopback address"
	case addr.IsLinkLocalUnicast():
		return "a link-local address"
	case addr.IsMulticast():
		return "a multicast address"
	}
	return "a broadcast address"
}

func checkPolicyDNSNames(c *candidate) *Decision {
	re := c.policy.HostnameRegex
	if re == nil {
		return nil
	}
	for _, name := range c.req.DNSNames {
		if !re.MatchString(name) {
			d := deny(ReasonDNSNameRejectedByPolicy, "DNS SAN %q does not match the hostname regex %q", name, re.String())
			return &d
		}
	}
	return nil
}

func checkPolicyIPAddresses(c *candidate) *Decision {
	allowed := c.policy.AllowedCIDRs
	if len(allowed) == 0 {
		return nil
	}
	for _, ip := range c.req.IPAddresses {
		addr, _ := sanAddr(ip)
		if !slices.ContainsFunc(allowed, func(p netip.Prefix) bool { return p.Contains(addr) }) {
			d := deny(ReasonIPAddressOutsideAllowedCIDRs, "IP SAN %s is outside the allowed CIDRs %v", ip, allowed)
			return &d
		}
	}
	return nil
}

func checkDNSNamesBelongToNode(c *candidate) *Decision {
	names := nodeDNSNames(c.node)
	for _, name := range c.req.DNSNames {
		if !slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, name) }) {
			d := deny(ReasonDNSNameNotNodeAddress, "DNS SAN %q is not an address of node %q (node DNS addresses %q)", name, c.nodeName, names)
			return &d
		}
	}
	return nil
}

func checkIPAddressesBelongToNode(c *candidate) *Decision {
	addrs := nodeIPs(c.node)
	for _, ip := range c.req.IPAddresses {
		addr, _ := sanAddr(ip)
		if !slices.Contains(addrs, addr) {
			d := deny(ReasonIPAddressNotNodeAddress, "IP SAN %s is not an address of node %q (node IP addresses %v)", ip, c.nodeName, addrs)
			return &d
		}
	}
	return nil
}

// sanAddr converts an IP SAN as crypto/x509 decodes it (4 or 16 bytes).
// IPv4-mapped IPv6 addresses are unmapped, as Go's TLS verification treats
// them as the IPv4 address.
func sanAddr(ip net.IP) (netip.Addr, bool) {
	addr, ok := netip.AddrFromSlice(ip)
	return addr.Unmap(), ok
}

func nodeDNSNames(node *corev1.Node) []string {
	var names []string
	for _, a := range node.Status.Addresses {
		switch a.Type {
		case corev1.NodeHostName, corev1.NodeInternalDNS, corev1.NodeExternalDNS:
			if a.Address != "" {
				names = append(names, a.Address)
			}
		}
	}
	return names
}

func nodeIPs(node *corev1.Node) []netip.Addr {
	var addrs []netip.Addr
	for _, a := range node.Status.Addresses {
		switch a.Type {
		case corev1.NodeInternalIP, corev1.NodeExternalIP:
			if addr, err := netip.ParseAddr(a.Address); err == nil {
				addrs = append(addrs, addr.Unmap())
			}
		}
	}
	return addrs
}

func describeSANs(req *x509.CertificateRequest) string {
	parts := make([]string, 0, len(req.DNSNames)+len(req.IPAddresses))
	for _, n := range req.DNSNames {
		parts = append(parts, "DNS:"+n)
	}
	for _, ip := range req.IPAddresses {
		parts = append(parts, "IP:"+ip.String())
	}
	return fmt.Sprintf("[%s]", strings.Join(parts, ", "))
}
