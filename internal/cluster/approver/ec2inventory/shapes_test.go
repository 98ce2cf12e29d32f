package ec2inventory

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy/policytest"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// Instance IDs and names of the shapes.
const (
	shapeID     = "i-0123456789abcdef0"
	shapeIPName = "ip-10-0-0-1.us-west-2.compute.internal"
	shapeRBN    = shapeID + ".us-west-2.compute.internal"
)

// shape is an EKS node: its instance as EC2 describes it and how its
// kubelet runs.
type shape struct {
	instance awstest.Instance
	// nodeName is the kubelet's --hostname-override: the private DNS name
	// (nodeadm's default) or the instance ID (InstanceIdNodeName).
	nodeName string
	// nodeIPs is the kubelet's --node-ip (nodeadm: IMDS local-ipv4, or the
	// primary MAC's first IPv6 in IPv6 clusters); none leaves every
	// address the cloud controller manager reports on the Node.
	nodeIPs []string
	// families are the cloud controller manager's NodeIPFamilies.
	families []string
	// beforeCCM: the Node still has the kubelet's own addresses (node IPs
	// and its host name) and no providerID.
	beforeCCM bool
}

// node returns the Node as the AWS cloud controller manager and the
// cloud-provider node controller leave it.
func (s shape) node() *corev1.Node {
	n := policytest.NewNode(s.nodeName)
	if s.beforeCCM {
		n.Status.Addresses = nil
		for _, ip := range s.nodeIPs {
			n.Status.Addresses = append(n.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: ip})
		}
		n.Status.Addresses = append(n.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeHostName, Address: s.nodeName})
		return n
	}
	n.Spec.ProviderID = "aws:///" + s.instance.AvailabilityZone + "/" + s.instance.ID
	n.Status.Addresses = filterByNodeIPs(ccmAddresses(s.instance, s.families), s.nodeIPs, s.nodeName)
	return n
}

// ccmAddresses are the addresses cloud-provider-aws reports for in
// (extractIPv4NodeAddresses, extractIPv6NodeAddresses): for ipv4 every
// private IPv4 of every in-use interface, the public IPv4, the private DNS
// name as InternalDNS and Hostname and the public DNS name; for ipv6 the
// first IPv6 of every in-use interface.
func ccmAddresses(in awstest.Instance, families []string) []corev1.NodeAddress {
	var out []corev1.NodeAddress
	add := func(t corev1.NodeAddressType, a string) { out = append(out, corev1.NodeAddress{Type: t, Address: a}) }
	for _, family := range families {
		for _, ni := range in.Interfaces {
			if ni.Status != "" && ni.Status != "in-use" {
				continue
			}
			switch {
			case family == "ipv4":
				for _, ip := range ni.PrivateIPs {
					add(corev1.NodeInternalIP, ip)
				}
			case len(ni.IPv6s) > 0:
				add(corev1.NodeInternalIP, ni.IPv6s[0])
			}
		}
		if family != "ipv4" {
			continue
		}
		if in.PublicIP != "" {
			add(corev1.NodeExternalIP, in.PublicIP)
		}
		if in.PrivateDNSName != "" {
			add(corev1.NodeInternalDNS, in.PrivateDNSName)
			add(corev1.NodeHostName, in.PrivateDNSName)
		}
		if in.PublicDNSName != "" {
			add(corev1.NodeExternalDNS, in.PublicDNSName)
		}
	}
	return out
}

// filterByNodeIPs applies the kubelet's provided node IPs as the
// cloud-provider node controller does (GetNodeAddressesFromNodeIP): an
// address type holding a node IP keeps only the node IPs; without a
// Hostname from the cloud, the kubelet's own is kept.
func filterByNodeIPs(addrs []corev1.NodeAddress, nodeIPs []string, hostname string) []corev1.NodeAddress {
	var out []corev1.NodeAddress
	if len(nodeIPs) == 0 {
		out = addrs
	}
	types := map[corev1.NodeAddressType]bool{}
	for _, ip := range nodeIPs {
		for _, a := range addrs {
			if net.ParseIP(a.Address).Equal(net.ParseIP(ip)) {
				out, types[a.Type] = append(out, a), true
			}
		}
	}
	for _, a := range addrs {
		if len(nodeIPs) > 0 && !types[a.Type] {
			out = append(out, a)
		}
	}
	if !slices.ContainsFunc(out, func(a corev1.NodeAddress) bool { return a.Type == corev1.NodeHostName }) {
		out = append(out, corev1.NodeAddress{Type: corev1.NodeHostName, Address: hostname})
	}
	return out
}

// kubeletSANs are the SANs a kubelet asks for: every address of its Node
// (kubelet addressesToHostnamesAndIPs), once each.
func kubeletSANs(n *corev1.Node) (dns []string, ips []net.IP) {
	for _, a := range n.Status.Addresses {
		ip := net.ParseIP(a.Address)
		switch {
		case ip != nil && a.Type != corev1.NodeInternalDNS && a.Type != corev1.NodeExternalDNS:
			if !slices.ContainsFunc(ips, ip.Equal) {
				ips = append(ips, ip)
			}
		case ip == nil && a.Type != corev1.NodeInternalIP && a.Type != corev1.NodeExternalIP:
			if !slices.Contains(dns, a.Address) {
				dns = append(dns, a.Address)
			}
		}
	}
	return dns, ips
}

// shapeInstance is an instance of the cluster's VPC and account in
// us-west-2a with the given name and interfaces.
func shapeInstance(name string, interfaces ...awstest.NetworkInterface) awstest.Instance {
	return awstest.Instance{ID: shapeID, PrivateDNSName: name, AvailabilityZone: "us-west-2a", VPCID: testVPC,
		OwnerID: awstest.DefaultAccountID, Interfaces: interfaces}
}

func eni(ips ...string) awstest.NetworkInterface { return awstest.NetworkInterface{PrivateIPs: ips} }

// TestEKSInstanceShapes decides, through the real SDK client and the EC2
// stub, the serving CSR a kubelet sends for the Node it has on the
// instance shapes EKS nodes run on, and CSRs that claim more.
func TestEKSInstanceShapes(t *testing.T) {
	ipv4 := []string{"ipv4"}
	withPublic := shapeInstance(shapeIPName, eni("10.0.0.1"))
	withPublic.PublicIP, withPublic.PublicDNSName = "54.1.2.3", "ec2-54-1-2-3.us-west-2.compute.amazonaws.com"
	rbn := shapeInstance(shapeRBN, eni("10.0.0.1"))
	rbn.HostnameType = "resource-name"
	rbnEast := shapeInstance(shapeID+".ec2.internal", eni("10.0.0.1"))
	rbnEast.HostnameType, rbnEast.AvailabilityZone = "resource-name", "us-east-1a"
	ipNameEast := shapeInstance("ip-10-0-0-1.ec2.internal", eni("10.0.0.1"))
	ipNameEast.AvailabilityZone = "us-east-1a"
	dualStack := shapeInstance(shapeIPName, awstest.NetworkInterface{PrivateIPs: []string{"10.0.0.1"}, IPv6s: []string{"2600:1f14:abc:de00::1"},
		IPv6Prefixes: []string{"2600:1f14:abc:de00:1::/80"}})
	ipv6Only := shapeInstance(shapeRBN, awstest.NetworkInterface{IPv6s: []string{"2600:1f14:abc:de00::1"}})
	ipv6Only.HostnameType = "resource-name"
	cni := shapeInstance(shapeIPName, eni("10.0.0.1", "10.0.0.11", "10.0.0.12"), eni("10.0.0.21", "10.0.0.22"))
	customNetworking := shapeInstance(shapeIPName,
		awstest.NetworkInterface{Slot: &awstest.Slot{Device: 2}, PrivateIPs: []string{"100.64.1.7", "100.64.1.8"}},
		awstest.NetworkInterface{Slot: &awstest.Slot{Device: 1}, PrivateIPs: []string{"100.64.0.9", "100.64.0.10"}},
		awstest.NetworkInterface{Slot: &awstest.Slot{}, PrivateIPs: []string{"10.0.0.1"}})
	multiCard := shapeInstance(shapeIPName,
		awstest.NetworkInterface{Slot: &awstest.Slot{Card: 1}, PrivateIPs: []string{"10.0.8.1"}},
		awstest.NetworkInterface{Slot: &awstest.Slot{}, PrivateIPs: []string{"10.0.0.1"}})
	secondaryEIP := shapeInstance(shapeIPName, awstest.NetworkInterface{PrivateIPs: []string{"10.0.0.1", "10.0.0.11"},
		PublicIPs: map[string]string{"10.0.0.11": "52.9.9.9"}})
	prefixes := shapeInstance(shapeIPName, awstest.NetworkInterface{PrivateIPs: []string{"10.0.0.1"}, IPv4Prefixes: []string{"10.0.4.16/28"}})

	tests := []struct {
		name  string
		shape shape
		// extra are addresses the node adds to its own status and asks a
		// certificate for too.
		extra []corev1.NodeAddress
		// sans replaces the DNS SANs when not nil.
		dnsSANs    []string
		wantReason string
	}{
		{name: "ip-name in us-west-2", wantReason: policy.ReasonApproved,
			shape: shape{instance: shapeInstance(shapeIPName, eni("10.0.0.1")), nodeName: shapeIPName, nodeIPs: []string{"10.0.0.1"}, families: ipv4}},
		{name: "ip-name in us-east-1 (ec2.internal)", wantReason: policy.ReasonApproved,
			shape: shape{instance: ipNameEast, nodeName: ipNameEast.PrivateDNSName, nodeIPs: []string{"10.0.0.1"}, families: ipv4}},
		{name: "resource-name hostname, node named by it", wantReason: policy.ReasonApproved,
			shape: shape{instance: rbn, nodeName: shapeRBN, nodeIPs: []string{"10.0.0.1"}, families: ipv4}},
		{name: "resource-name hostname in us-east-1", wantReason: policy.ReasonApproved,
			shape: shape{instance: rbnEast, nodeName: rbnEast.PrivateDNSName, nodeIPs: []string{"10.0.0.1"}, families: ipv4}},
		{name: "resource-name hostname, before the CCM (no providerID yet)", wantReason: policy.ReasonApproved,
			shape: shape{instance: rbn, nodeName: shapeRBN, nodeIPs: []string{"10.0.0.1"}, beforeCCM: true}},
		{name: "InstanceIdNodeName, before the CCM: the host name is the instance ID", wantReason: policy.ReasonApproved,
			shape: shape{instance: shapeInstance(shapeIPName, eni("10.0.0.1")), nodeName: shapeID, nodeIPs: []string{"10.0.0.1"}, beforeCCM: true}},
		{name: "InstanceIdNodeName, after the CCM", wantReason: policy.ReasonApproved,
			shape: shape{instance: shapeInstance(shapeIPName, eni("10.0.0.1")), nodeName: shapeID, nodeIPs: []string{"10.0.0.1"}, families: ipv4}},
		{name: "IPv6 cluster in a dual-stack subnet: the node IP is IPv6", wantReason: policy.ReasonApproved,
			shape: shape{instance: dualStack, nodeName: shapeIPName, nodeIPs: []string{"2600:1f14:abc:de00::1"}, families: []string{"ipv6"}}},
		{name: "IPv6 cluster, CCM reporting both families", wantReason: policy.ReasonApproved,
			shape: shape{instance: dualStack, nodeName: shapeIPName, nodeIPs: []string{"2600:1f14:abc:de00::1"}, families: []string{"ipv6", "ipv4"}}},
		{name: "dual-stack node IPs", wantReason: policy.ReasonApproved,
			shape: shape{instance: dualStack, nodeName: shapeIPName, nodeIPs: []string{"10.0.0.1", "2600:1f14:abc:de00::1"}, families: []string{"ipv4", "ipv6"}}},
		{name: "IPv6-only subnet: resource name, no IPv4", wantReason: policy.ReasonApproved,
			shape: shape{instance: ipv6Only, nodeName: shapeRBN, nodeIPs: []string{"2600:1f14:abc:de00::1"}, families: []string{"ipv6"}}},
		{name: "public IPv4 and public DNS name (ExternalIP, ExternalDNS)", wantReason: policy.ReasonApproved,
			shape: shape{instance: withPublic, nodeName: shapeIPName, nodeIPs: []string{"10.0.0.1"}, families: ipv4}},
		{name: "VPC CNI secondary IPs and interface, kubelet with its node IP", wantReason: policy.ReasonApproved,
			shape: shape{instance: cni, nodeName: shapeIPName, nodeIPs: []string{"10.0.0.1"}, families: ipv4}},
		{name: "custom networking: the primary interface listed after the pod interfaces", wantReason: policy.ReasonApproved,
			shape: shape{instance: customNetworking, nodeName: shapeIPName, nodeIPs: []string{"10.0.0.1"}, families: ipv4}},
		{name: "custom DHCP domain: node named by its private DNS name", wantReason: policy.ReasonApproved,
			shape: shape{instance: shapeInstance(shapeIPName, eni("10.0.0.1")), nodeName: shapeIPName, nodeIPs: []string{"10.0.0.1"}, families: ipv4}},
		{name: "DNS SAN in upper case", wantReason: policy.ReasonApproved, dnsSANs: []string{strings.ToUpper(shapeIPName)},
			shape: shape{instance: shapeInstance(shapeIPName, eni("10.0.0.1")), nodeName: shapeIPName, nodeIPs: []string{"10.0.0.1"}, families: ipv4}},

		// Deliberately denied.
		{name: "kubelet without --node-ip: the CCM reports the pods' secondary IPs", wantReason: policy.ReasonIPAddressNotPrimary,
			shape: shape{instance: cni, nodeName: shapeIPName, families: ipv4}},
		{name: "custom networking, kubelet without --node-ip", wantReason: policy.ReasonIPAddressNotPrimary,
			shape: shape{instance: customNetworking, nodeName: shapeIPName, families: ipv4}},
		{name: "custom DHCP domain: the OS host name is no EC2 name", wantReason: policy.ReasonDNSNameNotInstanceAddress,
			shape: shape{instance: shapeInstance(shapeIPName, eni("10.0.0.1")), nodeName: shapeIPName, nodeIPs: []string{"10.0.0.1"}, families: ipv4},
			extra: []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: "ip-10-0-0-1.corp.example"}}},
		{name: "resource-name instance: its IP-based name", wantReason: policy.ReasonDNSNameNotInstanceAddress,
			shape: shape{instance: rbn, nodeName: shapeRBN, nodeIPs: []string{"10.0.0.1"}, families: ipv4},
			extra: []corev1.NodeAddress{{Type: corev1.NodeInternalDNS, Address: shapeIPName}}},
		{name: "DNS SAN with a trailing dot", wantReason: policy.ReasonInvalidDNSName, dnsSANs: []string{shapeIPName + "."},
			shape: shape{instance: shapeInstance(shapeIPName, eni("10.0.0.1")), nodeName: shapeIPName, nodeIPs: []string{"10.0.0.1"}, families: ipv4}},

		// Dishonest: the node adds addresses its instance holds, but that
		// are not its own, to its status.
		{name: "status spoof: a pod's secondary IP on the primary interface", wantReason: policy.ReasonIPAddressNotPrimary,
			shape: shape{instance: cni, nodeName: shapeIPName, nodeIPs: []string{"10.0.0.1"}, families: ipv4},
			extra: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.11"}}},
		{name: "status spoof: an address of the CNI's second interface", wantReason: policy.ReasonIPAddressNotPrimary,
			shape: shape{instance: cni, nodeName: shapeIPName, nodeIPs: []string{"10.0.0.1"}, families: ipv4},
			extra: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.21"}}},
		{name: "status spoof: device 0 of the second network card", wantReason: policy.ReasonIPAddressNotPrimary,
			shape: shape{instance: multiCard, nodeName: shapeIPName, nodeIPs: []string{"10.0.0.1"}, families: ipv4},
			extra: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.8.1"}}},
		{name: "status spoof: an Elastic IP on a secondary address", wantReason: policy.ReasonIPAddressNotPrimary,
			shape: shape{instance: secondaryEIP, nodeName: shapeIPName, nodeIPs: []string{"10.0.0.1"}, families: ipv4},
			extra: []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: "52.9.9.9"}}},
		{name: "status spoof: a pod IPv6 from the delegated /80 prefix", wantReason: policy.ReasonIPAddressNotInstanceAddress,
			shape: shape{instance: dualStack, nodeName: shapeIPName, nodeIPs: []string{"2600:1f14:abc:de00::1"}, families: []string{"ipv6"}},
			extra: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "2600:1f14:abc:de00:1::5"}}},
		{name: "status spoof: a pod IPv4 from a delegated /28 prefix", wantReason: policy.ReasonIPAddressNotInstanceAddress,
			shape: shape{instance: prefixes, nodeName: shapeIPName, nodeIPs: []string{"10.0.0.1"}, families: ipv4},
			extra: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.4.20"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, f := newSource(t, Options{TTL: time.Minute})
			f.stub.AddInstance(tc.shape.instance)
			node := tc.shape.node()
			node.Status.Addresses = append(node.Status.Addresses, tc.extra...)
			dns, ips := kubeletSANs(node)
			if tc.dnsSANs != nil {
				dns = tc.dnsSANs
			}
			csr := policytest.NewCSR(t, shapeFixture(tc.shape.nodeName, dns, ips))
			key, err := policy.InstanceKeyFor(node)
			if err != nil {
				t.Fatal(err)
			}

			d := policy.Decide(csr, node, lookup(t, s, f, key), policy.Policy{Inventory: policy.InventoryEC2})

			if d.Reason != tc.wantReason {
				t.Fatalf("Decide() = %s, want %s; SANs %q %v; message: %s", d.Reason, tc.wantReason, dns, ips, d.Message)
			}
		})
	}
}

// shapeFixture is the serving CSR of the kubelet of node name for SANs dns
// and ips.
func shapeFixture(name string, dns []string, ips []net.IP) policytest.Fixture {
	f := policytest.ValidFixture()
	f.Username = "system:node:" + name
	f.Request = x509.CertificateRequest{
		Subject:  pkix.Name{CommonName: "system:node:" + name, Organization: []string{"system:nodes"}},
		DNSNames: dns, IPAddresses: ips,
	}
	return f
}
