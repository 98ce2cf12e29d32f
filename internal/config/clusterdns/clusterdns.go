// Package clusterdns holds the one rule for the cluster DNS (kube-dns)
// address a node's kubelet gets: from the service CIDR as nodeadm derives
// it, else from the VPC's CIDR blocks as bootstrap.sh does. The node's
// renderer, converters and generators all call it.
package clusterdns

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// Errors of Address.
var (
	// ErrInvalidServiceCIDR means the service CIDR, or a VPC CIDR block,
	// is not a CIDR, or the address derived from it is not an address.
	ErrInvalidServiceCIDR = errors.New("invalid CIDR")
	// ErrNoClusterDNSSource means neither a service CIDR nor VPC CIDR blocks
	// are known, so the cluster DNS address cannot be derived.
	ErrNoClusterDNSSource = errors.New("cannot derive cluster DNS: no service CIDR (spec.cluster.cidr) and no VPC CIDR blocks (status.instance.vpcIPv4CIDRs)")
)

// Cluster DNS addresses of the two EKS default service CIDRs, used when the
// service CIDR is unknown (bootstrap.sh rule, legacy-formats.md §A.4).
const (
	fallbackDNSWhenVPCIn10 = "172.20.0.10" // service CIDR 172.20.0.0/16
	fallbackDNSOtherwise   = "10.100.0.10" // service CIDR 10.100.0.0/16
)

// Address returns the kube-dns service address for the service CIDR.
//
// With a CIDR it is derived exactly as nodeadm and bootstrap.sh derive it,
// from the CIDR's text: for IPv4 the last octet of the address replaced by
// 10 (10.100.0.0/16 → 10.100.0.10; with host bits, 172.20.5.0/16 →
// 172.20.5.10, as AL2 boots it), for IPv6 the address text with "a"
// appended (fd30:1c53:5f8a::/108 → fd30:1c53:5f8a::a). For EKS's service
// CIDRs (IPv4 /12 to /24, IPv6 /108, network addresses) that is the network
// address plus 10; InsideCIDR tells when it is not.
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
	if prefix.Addr().Is4() {
		a := prefix.Addr().As4()
		a[3] = 10
		return netip.AddrFrom4(a).String(), nil
	}
	text, _, _ := strings.Cut(cidr, "/")
	if _, err := netip.ParseAddr(text + "a"); err != nil {
		return "", fmt.Errorf("%w: service CIDR %q: the cluster DNS address nodeadm derives from it, %q, is not an address", ErrInvalidServiceCIDR, cidr, text+"a")
	}
	// The text as nodeadm writes it (FD00:10:96::a stays upper case):
	// the kubelet reads the same address either way.
	return text + "a", nil
}

// InsideCIDR reports whether the cluster DNS address Address derives from
// a valid service CIDR is the network address plus 10, inside the CIDR:
// false for a CIDR with host bits or one too small, where the derived
// address is most likely not the cluster's DNS service.
func InsideCIDR(cidr string) (want string, ok bool) {
	prefix, err := netip.ParsePrefix(cidr)
	if err != nil {
		return "", false
	}
	got, err := dnsFromServiceCIDR(cidr)
	network := prefix.Masked()
	addr := network.Addr()
	for range 10 {
		addr = addr.Next()
	}
	if !addr.IsValid() || !network.Contains(addr) {
		return "", false
	}
	gotAddr, perr := netip.ParseAddr(got)
	return addr.String(), err == nil && perr == nil && gotAddr == addr
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
