package ec2

import (
	"context"
	"fmt"

	sdkec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// SecurityGroup is a security group's rules, as the doctor judges them.
type SecurityGroup struct {
	ID, Name        string
	Ingress, Egress []Permission
}

// Permission is one rule: a protocol ("tcp", "udp", or "-1" for all) and
// port range (both -1 or 0 for all protocols), from (ingress) or to
// (egress) groups and CIDR ranges.
type Permission struct {
	Protocol         string
	FromPort, ToPort int32
	Groups           []string
	CIDRs            []string
	PrefixLists      []string
}

// InstanceSecurityGroups returns the security groups of an instance's
// primary network interface (ec2:DescribeInstances, then
// ec2:DescribeSecurityGroups, both in the standard worker node policy).
func (c *Client) InstanceSecurityGroups(ctx context.Context, instanceID string) ([]SecurityGroup, error) {
	out, err := c.api.DescribeInstances(ctx, &sdkec2.DescribeInstancesInput{InstanceIds: []string{instanceID}})
	if err != nil {
		return nil, apiError("DescribeInstances "+instanceID, err)
	}
	var ids []string
	for _, r := range out.Reservations {
		for _, in := range r.Instances {
			for _, g := range in.SecurityGroups {
				ids = append(ids, deref(g.GroupId))
			}
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("ec2 DescribeInstances %s: no security groups: %w", instanceID, ErrInstanceNotFound)
	}
	return c.SecurityGroups(ctx, ids)
}

// SecurityGroups describes security groups by ID.
func (c *Client) SecurityGroups(ctx context.Context, ids []string) ([]SecurityGroup, error) {
	out, err := c.api.DescribeSecurityGroups(ctx, &sdkec2.DescribeSecurityGroupsInput{GroupIds: ids})
	if err != nil {
		return nil, apiError(fmt.Sprintf("DescribeSecurityGroups %v", ids), err)
	}
	groups := make([]SecurityGroup, 0, len(out.SecurityGroups))
	for _, g := range out.SecurityGroups {
		groups = append(groups, SecurityGroup{ID: deref(g.GroupId), Name: deref(g.GroupName),
			Ingress: permissionsOf(g.IpPermissions), Egress: permissionsOf(g.IpPermissionsEgress)})
	}
	return groups, nil
}

func permissionsOf(ps []types.IpPermission) []Permission {
	out := make([]Permission, 0, len(ps))
	for _, p := range ps {
		perm := Permission{Protocol: deref(p.IpProtocol), FromPort: deref(p.FromPort), ToPort: deref(p.ToPort)}
		for _, g := range p.UserIdGroupPairs {
			perm.Groups = append(perm.Groups, deref(g.GroupId))
		}
		for _, r := range p.IpRanges {
			perm.CIDRs = append(perm.CIDRs, deref(r.CidrIp))
		}
		for _, r := range p.Ipv6Ranges {
			perm.CIDRs = append(perm.CIDRs, deref(r.CidrIpv6))
		}
		for _, pl := range p.PrefixListIds {
			perm.PrefixLists = append(perm.PrefixLists, deref(pl.PrefixListId))
		}
		out = append(out, perm)
	}
	return out
}
