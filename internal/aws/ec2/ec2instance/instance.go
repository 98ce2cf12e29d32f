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
	// PrivateIPs are the instance's primary private IPv4 and every private
	// IPv4 of its in-use network interfaces (secondary addresses included),
	// the set a cloud controller manager reports as InternalIP.
	PrivateIPs []netip.Addr
	// IPv6s are the IPv6 addresses of its in-use network interfaces.
	IPv6s []netip.Addr
	// PublicIP is the public IPv4 address, if any.
	PublicIP netip.Addr
}
