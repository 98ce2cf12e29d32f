// Package clusterdns holds the one rule for the cluster DNS (kube-dns)
// address a node's kubelet gets: from the service CIDR as nodeadm derives
// it, else from the VPC's CIDR blocks as bootstrap.sh does. The node's
// renderer, converters and generators all call it.
package clusterdns

import (
	"errors"
	"fmt"
	"net/netip"
)

// Errors of Address.
var (
	// ErrInvalidServiceCIDR means the service CIDR, or a VPC CIDR block,
	// is not a CIDR.
	ErrInvalidServiceCIDR = errors.New("invalid CIDR")
	// ErrServiceCIDRTooSmall means the service CIDR has no room for the DNS
	// address (network address + 10).
	ErrServiceCIDRTooSmall = errors.New("service CIDR too small for the cluster DNS address")
	// ErrNoClusterDNSSource means neither a service CIDR nor VPC CIDR blocks
	// are known, so the cluster DNS address cannot be derived.
	ErrNoClusterDNSSource = errors.New("cannot derive cluster DNS: no service CIDR (spec.cluster.cidr) and no VPC CIDR blocks (status.instance.vpcIPv4CIDRs)")
)

// dnsHostOffset is the cluster DNS address's offset in the service CIDR
// (EKS puts kube-dns at x.y.z.10 / <prefix>::a).
const dnsHostOffset = 10

// Cluster DNS addresses of the two EKS default service CIDRs, used when the
// service CIDR is unknown (bootstrap.sh rule, legacy-formats.md §A.4).
const (
	fallbackDNSWhenVPCIn10 = "172.20.0.10" // service CIDR 172.20.0.0/16
	fallbackDNSOtherwise   = "10.100.0.10" // service CIDR 10.100.0.0/16
)

// Address returns the kube-dns service address for the service CIDR.
//
// With a CIDR the address is the network address plus 10: for IPv4 that is
// nodeadm's "last octet replaced by 10" (10.100.0.0/16 → 10.100.0.10) for
// every prefix up to /24, and for IPv6 nodeadm's "address text plus a"
// (fd30:1c53:5f8a::/108 → fd30:1c53:5f8a::a). Unlike nodeadm's string edits
// it masks host bits and refuses prefixes too small to hold the address.
//
// Without a CIDR it applies bootstrap.sh's VPC rule: 172.20.0.10 when any
// VPC IPv4 CIDR block lies in 10.0.0.0/8, else 10.100.0.10. With neither it
// returns ErrNoClusterDNSSource.
func Address(cidr string, vpcCIDRs []string) (string, error) {
	if cidr != "" {
		return dnsFromServiceCIDR(cidr)
	}
	return dnsFromVPCCIDRs(vpcCIDRs)
}

func dnsFromServiceCIDR(cidr string) (string, error) {
	prefix, err := netip.ParsePrefix(cidr)
	if err != nil {
		return "", fmt.Errorf("%w: service CIDR %q: %w", ErrInvalidServiceCIDR, cidr, err)
	}
	prefix = prefix.Masked()
	addr := prefix.Addr()
	for range dnsHostOffset {
		addr = addr.Next()
	}
	if !addr.IsValid() || !prefix.Contains(addr) {
		return "", fmt.Errorf("%w: %s", ErrServiceCIDRTooSmall, prefix)
	}
	return addr.String(), nil
}

var tenSlashEight = netip.MustParsePrefix("10.0.0.0/8")

func dnsFromVPCCIDRs(vpcCIDRs []string) (string, error) {
	if len(vpcCIDRs) == 0 {
		return "", ErrNoClusterDNSSource
	}
	dns := fallbackDNSOtherwise
	for _, c := range vpcCIDRs {
		prefix, err := netip.ParsePrefix(c)
		if err != nil {
			return "", fmt.Errorf("%w: VPC CIDR block %q: %w", ErrInvalidServiceCIDR, c, err)
		}
		if tenSlashEight.Contains(prefix.Addr()) {
			dns = fallbackDNSWhenVPCIn10
		}
	}
	return dns, nil
}
