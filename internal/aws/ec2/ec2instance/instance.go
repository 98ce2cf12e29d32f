// Package ec2instance describes an EC2 instance's identity and addresses
// as DescribeInstances reports them. It holds data only and imports no AWS
// SDK package, so that code that reads instances without calling EC2 (the
// approver's policy) does not compile the EC2 service client; package ec2
// fills it.
package ec2instance

import "net/netip"

// Instance is what DescribeInstances says about an instance's identity and
// addresses.
type Instance struct {
	ID string
	// State is instanceState.name: pending, running, shutting-down,
	// terminated, stopping or stopped.
	State            string
	AvailabilityZone string
	PrivateDNSName   string
	PublicDNSName    string
	// VPCID is the VPC the instance runs in (vpcId).
	VPCID string
	// OwnerID is the AWS account that owns the instance's reservation
	// (reservation ownerId).
	OwnerID string
	// PrivateIP is the primary private IPv4 address of the primary network
	// interface (privateIpAddress): the kubelet's node IP in IPv4 clusters
	// (IMDS local-ipv4). It is invalid in IPv6-only subnets.
	PrivateIP netip.Addr
	// IPv6s are the IPv6 addresses of the primary network interface (device
	// index 0 on network card 0): the node IP of IPv6 clusters is one of
	// them (IMDS ipv6s of the primary MAC).
	IPv6s []netip.Addr
	// PublicIP is the public IPv4 address of the primary private address
	// (ipAddress: auto-assigned or Elastic), if any.
	PublicIP netip.Addr
	// SecondaryIPs are the instance's other addresses: the secondary
	// private IPv4 addresses of its in-use interfaces, every private IPv4
	// and IPv6 of its other in-use interfaces and the public IPv4 addresses
	// associated with any of them. The VPC CNI hands them to pods, and they
	// move between instances; the cloud controller manager reports the
	// private ones, but a kubelet with a node IP keeps only that one.
	SecondaryIPs []netip.Addr
}
