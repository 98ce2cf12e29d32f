package netmanager

import (
	"fmt"
	"strings"
)

// Paths on the node.
const (
	// NetworkDir is systemd-networkd's runtime configuration directory
	// (emptied at every boot).
	NetworkDir = "/run/systemd/network"
	// DisableDefaultPath is the drop-in that stops the image's catch-all
	// 80-ec2.network (amazon-ec2-net-utils) from matching any interface.
	DisableDefaultPath = NetworkDir + "/80-ec2.network.d/10-eks-disable.conf"
	// DecisionDir holds the remembered decisions, <DecisionDir>/<instance
	// id>/<interface>; nodeadm's path, so that it carries over.
	DecisionDir = "/etc/eks/nodeadm/udev-net-manager"
	// RunStartedMarker exists once the run phase (nodeboot-run) started; the
	// agent writes it. nodeadm's path.
	RunStartedMarker = "/run/nodeadm/init"
)

// Route priorities, as amazon-ec2-net-utils and the VPC CNI number them.
const (
	metricBase          = 512
	tableBase           = 10000
	policyRulePriority  = 32765
	perNetworkCardIndex = 100
)

// NetworkFilePath is the .network file of an interface.
func NetworkFilePath(iface string) string {
	return NetworkDir + "/70-eks-" + iface + ".network"
}

// Link is an interface networkd manages.
type Link struct {
	// MAC is the interface's permanent MAC address.
	MAC string
	// Primary is the instance's primary ENI.
	Primary bool
	// DeviceNumber and NetworkCard place the ENI (from IMDS).
	DeviceNumber, NetworkCard int
	// IPv4 is the ENI's first private IPv4 address; "" on IPv6-only ENIs.
	IPv4 string
}

// Metric is the route metric of the link's routes: the primary ENI's
// routes are preferred, then by card and device number.
func (l Link) Metric() int { return metricBase + perNetworkCardIndex*l.NetworkCard + l.DeviceNumber }

// Table is the routing table of a secondary ENI's default routes.
func (l Link) Table() int { return tableBase + perNetworkCardIndex*l.NetworkCard + l.DeviceNumber }

// NetworkFile renders the link's 70-eks-<if>.network: amazon-ec2-net-utils'
// defaults (jumbo frames, DHCPv4 and DHCPv6, no LLMNR, no duplicate
// address detection, DHCP hostnames ignored) with the link's route metric.
// A secondary ENI gets its default routes in its own table and, when it
// has an IPv4 address, a rule sending traffic from that address there
// (priority 32765, below the VPC CNI's rules).
func NetworkFile(l Link) []byte {
	var b strings.Builder
	section := func(name string, kv ...string) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "[%s]\n", name)
		for i := 0; i+1 < len(kv); i += 2 {
			fmt.Fprintf(&b, "%s=%s\n", kv[i], kv[i+1])
		}
	}
	metric := fmt.Sprint(l.Metric())
	b.WriteString("# Written by nodeboot udev-net-manager: this interface is managed by systemd-networkd.\n")
	section("Match", "PermanentMACAddress", l.MAC)
	section("Link", "MTUBytes", "9001")
	section("Network", "DHCP", "yes", "IPv6DuplicateAddressDetection", "0", "LLMNR", "no", "DNSDefaultRoute", "yes")
	section("DHCPv4", "UseHostname", "no", "UseDNS", "yes", "UseNTP", "yes", "UseDomains", "yes",
		"RouteMetric", metric, "UseRoutes", "true", "UseGateway", "true")
	section("DHCPv6", "UseHostname", "no", "UseDNS", "yes", "UseNTP", "yes", "WithoutRA", "solicit")
	section("IPv6AcceptRA", "RouteMetric", metric, "UseGateway", "true")
	if !l.Primary {
		table := fmt.Sprint(l.Table())
		section("Route", "Table", table, "Gateway", "_ipv6ra")
		section("Route", "Table", table, "Gateway", "_dhcp4")
		if l.IPv4 != "" {
			section("RoutingPolicyRule", "From", l.IPv4, "Table", table, "Priority", fmt.Sprint(policyRulePriority))
		}
	}
	return []byte(b.String())
}

// DisableDefault is the content of DisableDefaultPath: a match no
// interface has.
func DisableDefault() []byte { return []byte("[Match]\nName=none\n") }
