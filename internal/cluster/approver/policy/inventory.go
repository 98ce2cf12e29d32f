package policy

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/nodeboot/nodeboot/internal/aws/ec2/ec2instance"
)

// InventoryMode says whether Decide checks SANs against the EC2 inventory.
// A kubelet may rewrite its own Node's status.addresses, so the Node's
// addresses only show what the node claims; the inventory shows what EC2
// gave the instance.
type InventoryMode int

const (
	// InventoryOff checks nothing against EC2 (the operator turned the
	// check off). It is the zero value.
	InventoryOff InventoryMode = iota
	// InventoryEC2 requires every Node to be a running EC2 instance whose
	// private DNS name or ID is the node name and whose addresses include
	// every SAN.
	InventoryEC2
	// InventoryUnavailable is set when the check should run but the
	// approver cannot run it (no AWS region found, or the cluster's VPC
	// and account unknown): every CSR is denied, because no Node's claim
	// can be verified and a Node's addresses are the node's own words.
	InventoryUnavailable
)

// String returns off, ec2 or unavailable.
func (m InventoryMode) String() string {
	switch m {
	case InventoryOff:
		return "off"
	case InventoryEC2:
		return "ec2"
	case InventoryUnavailable:
		return "unavailable"
	}
	return fmt.Sprintf("InventoryMode(%d)", int(m))
}

// InventoryAnswer is what the inventory said about the instance of one
// Node: the instances found for Key, or why the lookup failed.
type InventoryAnswer struct {
	// Key is what was looked up; Decide checks it is the Node's.
	Key InstanceKey
	// Instances are the instances EC2 returned for Key, in any state: none
	// when it knows no such instance, several when a private DNS name is
	// in use in several VPCs or was reused after a termination.
	Instances []ec2instance.Instance
	// Err is set when the lookup failed; Instances is then empty.
	Err error
	// Transient says Err may go away on a later lookup (throttling, 5xx,
	// timeout); otherwise it needs a change first (access denied).
	Transient bool
	// Home is the cluster's VPC and account, which the instance must be
	// in; it is set whenever Err is not.
	Home ClusterHome
}

// ClusterHome is where the cluster's own instances live.
type ClusterHome struct {
	// VPCID is the cluster's VPC (eks:DescribeCluster resourcesVpcConfig).
	VPCID string
	// AccountID is the AWS account of the cluster.
	AccountID string
}

// stateRunning is the only instance state whose addresses are approved.
const stateRunning = "running"

// checkInstance finds the instance behind the Node in the inventory answer
// and checks that it is this node's: running, with the node name as its
// private DNS name or ID, in the zone the providerID names.
func checkInstance(c *candidate) *Decision {
	switch c.policy.Inventory {
	case InventoryOff:
		return nil
	case InventoryUnavailable:
		d := deny(ReasonInventoryUnavailable, "node %q cannot be verified against EC2, and a Node's own addresses are not trusted alone: %s",
			c.nodeName, unavailableReason(c.policy))
		return &d
	}
	ref, err := instanceOf(c.node)
	if err != nil {
		d := deny(ReasonNotEC2Instance, "node %q cannot be checked against EC2: %v", c.nodeName, err)
		return &d
	}
	if d := answerDecision(c.nodeName, ref.key, c.inventory); d != nil {
		return d
	}
	in, d := selectInstance(c.nodeName, ref.key, c.inventory.Instances)
	if d != nil {
		return d
	}
	if !strings.EqualFold(in.PrivateDNSName, c.nodeName) && in.ID != c.nodeName {
		d := deny(ReasonInstanceMismatch, "node %q is not EC2 instance %s, whose private DNS name is %q",
			c.nodeName, in.ID, in.PrivateDNSName)
		return &d
	}
	if ref.zone != "" && ref.zone != in.AvailabilityZone {
		d := deny(ReasonInstanceMismatch, "node %q has providerID %q, but EC2 instance %s is in %q",
			c.nodeName, c.node.Spec.ProviderID, in.ID, in.AvailabilityZone)
		return &d
	}
	if d := checkHome(c.nodeName, in, c.inventory.Home); d != nil {
		return d
	}
	c.instance = &in
	return nil
}

// checkHome denies an instance outside the cluster's VPC or account: a
// same-named instance elsewhere (another VPC reuses private IPs and so
// private DNS names) is not this cluster's node.
func checkHome(nodeName string, in ec2instance.Instance, home ClusterHome) *Decision {
	switch {
	case home.VPCID == "" || home.AccountID == "":
		d := deny(ReasonInventoryLookupFailed, "node %q: the cluster's VPC and account are unknown, so EC2 instance %s cannot be placed", nodeName, in.ID)
		return &d
	case in.VPCID != home.VPCID:
		d := deny(ReasonInstanceOutsideClusterVPC, "node %q: EC2 instance %s is in VPC %q, not in the cluster's VPC %q",
			nodeName, in.ID, in.VPCID, home.VPCID)
		return &d
	case in.OwnerID != home.AccountID:
		d := deny(ReasonInstanceOutsideClusterAccount, "node %q: EC2 instance %s belongs to account %q, not to the cluster's account %q",
			nodeName, in.ID, in.OwnerID, home.AccountID)
		return &d
	}
	return nil
}

// answerDecision denies when the lookup failed or answered another key.
func answerDecision(nodeName string, key InstanceKey, ans InventoryAnswer) *Decision {
	switch {
	case ans.Key != key:
		d := deny(ReasonInventoryLookupFailed, "no EC2 inventory answer for node %q (%s)", nodeName, key)
		return &d
	case ans.Err != nil && ans.Transient:
		d := deny(ReasonInventoryUnreachable, "EC2 inventory lookup of %s for node %q failed: %v", key, nodeName, ans.Err)
		return &d
	case ans.Err != nil:
		d := deny(ReasonInventoryLookupFailed, "EC2 inventory lookup of %s for node %q failed: %v", key, nodeName, ans.Err)
		return &d
	}
	return nil
}

// selectInstance picks the one running instance that key names.
func selectInstance(nodeName string, key InstanceKey, found []ec2instance.Instance) (ec2instance.Instance, *Decision) {
	var matching, running []ec2instance.Instance
	for _, in := range found {
		if (key.ID != "" && in.ID == key.ID) || (key.ID == "" && strings.EqualFold(in.PrivateDNSName, key.PrivateDNSName)) {
			matching = append(matching, in)
			if in.State == stateRunning {
				running = append(running, in)
			}
		}
	}
	switch {
	case len(running) == 1:
		return running[0], nil
	case len(running) > 1:
		d := deny(ReasonAmbiguousInstance, "node %q: %d running EC2 instances have %s (%s); set the node's providerID to tell them apart",
			nodeName, len(running), key, strings.Join(instanceIDs(running), ", "))
		return ec2instance.Instance{}, &d
	case len(matching) > 0:
		d := deny(ReasonInstanceNotRunning, "node %q: EC2 %s is %s, not running", nodeName, key, instanceStates(matching))
		return ec2instance.Instance{}, &d
	}
	d := deny(ReasonInstanceNotFound, "node %q: EC2 knows no %s", nodeName, key)
	return ec2instance.Instance{}, &d
}

func checkDNSNamesBelongToInstance(c *candidate) *Decision {
	if c.instance == nil {
		return nil
	}
	names := instanceDNSNames(c.instance)
	for _, name := range c.req.DNSNames {
		if !slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, name) }) {
			d := deny(ReasonDNSNameNotInstanceAddress, "DNS SAN %q is not a DNS name of EC2 instance %s of node %q (instance DNS names %q)",
				name, c.instance.ID, c.nodeName, names)
			return &d
		}
	}
	return nil
}

func checkIPAddressesBelongToInstance(c *candidate) *Decision {
	if c.instance == nil {
		return nil
	}
	addrs := instanceIPs(c.instance)
	for _, ip := range c.req.IPAddresses {
		addr, _ := sanAddr(ip)
		switch {
		case slices.Contains(addrs, addr):
		case slices.Contains(c.instance.SecondaryIPs, addr):
			d := deny(ReasonIPAddressNotPrimary, "IP SAN %s is a secondary address of EC2 instance %s of node %q, which the VPC CNI gives to pods "+
				"and which can move to another instance; only the instance's own addresses %v are certified (set the kubelet's --node-ip to one of them)",
				ip, c.instance.ID, c.nodeName, addrs)
			return &d
		default:
			d := deny(ReasonIPAddressNotInstanceAddress, "IP SAN %s is not an address of EC2 instance %s of node %q (instance addresses %v)",
				ip, c.instance.ID, c.nodeName, addrs)
			return &d
		}
	}
	return nil
}

// instanceDNSNames are the names a SAN may use for the instance: its
// private and public DNS names, and its ID (the node name, and so the
// kubelet's Hostname address, of nodes named by instance ID).
func instanceDNSNames(in *ec2instance.Instance) []string {
	var names []string
	for _, n := range []string{in.PrivateDNSName, in.PublicDNSName, in.ID} {
		if n != "" {
			names = append(names, n)
		}
	}
	return names
}

// instanceIPs are the addresses a SAN may use for the instance: the
// primary private IPv4 and the IPv6 addresses of its primary network
// interface (among which a kubelet's --node-ip) and its public IPv4, the
// addresses the cloud controller manager leaves on a Node whose kubelet
// names its node IP. Secondary addresses are not among them: they are pod
// addresses under the VPC CNI, and can be moved to another instance while
// the certificate is still valid.
func instanceIPs(in *ec2instance.Instance) []netip.Addr {
	var addrs []netip.Addr
	if in.PrivateIP.IsValid() {
		addrs = append(addrs, in.PrivateIP)
	}
	addrs = append(addrs, in.IPv6s...)
	if in.PublicIP.IsValid() {
		addrs = append(addrs, in.PublicIP)
	}
	return addrs
}

func instanceIDs(ins []ec2instance.Instance) []string {
	ids := make([]string, len(ins))
	for i, in := range ins {
		ids[i] = in.ID
	}
	return ids
}

func instanceStates(ins []ec2instance.Instance) string {
	parts := make([]string, len(ins))
	for i, in := range ins {
		parts[i] = fmt.Sprintf("%s %s", in.ID, in.State)
	}
	return strings.Join(parts, ", ")
}
