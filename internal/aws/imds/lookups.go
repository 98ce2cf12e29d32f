package imds

import (
	"context"
	"fmt"
	"strings"

	sdkimds "github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
)

// InstanceIdentity is the part of dynamic/instance-identity/document nodeboot uses.
type InstanceIdentity struct {
	ID     string
	Region string
	Type   string
	AZ     string
}

// UserData returns the raw user data. An instance launched without user data
// yields an error wrapping ErrNotFound; callers treat that as "no user data".
func (c *Client) UserData(ctx context.Context) ([]byte, error) {
	var data []byte
	err := c.lookup(ctx, "user-data", func(ctx context.Context) error {
		out, err := c.sdk.GetUserData(ctx, &sdkimds.GetUserDataInput{})
		if err == nil {
			data, err = readAll(out.Content)
		}
		return err
	})
	return data, err
}

// IdentityDocument returns the instance's ID, region, type and availability
// zone from the identity document. A document without ID or region yields an
// error wrapping ErrIncompleteIdentity.
func (c *Client) IdentityDocument(ctx context.Context) (InstanceIdentity, error) {
	var out *sdkimds.GetInstanceIdentityDocumentOutput
	err := c.lookup(ctx, "dynamic/instance-identity/document", func(ctx context.Context) (err error) {
		out, err = c.sdk.GetInstanceIdentityDocument(ctx, &sdkimds.GetInstanceIdentityDocumentInput{})
		return err
	})
	if err != nil {
		return InstanceIdentity{}, err
	}
	id := InstanceIdentity{
		ID:     out.InstanceID,
		Region: out.Region,
		Type:   out.InstanceType,
		AZ:     out.AvailabilityZone,
	}
	if id.ID == "" || id.Region == "" {
		return id, fmt.Errorf("imds dynamic/instance-identity/document: instance ID %q, region %q: %w",
			id.ID, id.Region, ErrIncompleteIdentity)
	}
	return id, nil
}

// MAC returns the MAC address of the primary network interface.
func (c *Client) MAC(ctx context.Context) (string, error) {
	v, err := c.metadata(ctx, "mac")
	return strings.TrimSpace(v), err
}

// LocalIPv4 returns the primary private IPv4 address.
func (c *Client) LocalIPv4(ctx context.Context) (string, error) {
	v, err := c.metadata(ctx, "local-ipv4")
	return strings.TrimSpace(v), err
}

// InstanceLifecycle returns instance-life-cycle: "on-demand" or "spot"
// (eksctl's AL2 script labels the node with it).
func (c *Client) InstanceLifecycle(ctx context.Context) (string, error) {
	v, err := c.metadata(ctx, "instance-life-cycle")
	return strings.TrimSpace(v), err
}

// IPv6s returns the IPv6 addresses of the interface with the given MAC, one
// per line of the answer. An interface without IPv6 yields ErrNotFound.
func (c *Client) IPv6s(ctx context.Context, mac string) ([]string, error) {
	v, err := c.metadata(ctx, macPath(mac, "ipv6s"))
	if err != nil {
		return nil, err
	}
	return splitLines(v), nil
}

// VPCIPv4CIDRs returns the IPv4 CIDR blocks of the VPC the interface with the
// given MAC belongs to.
func (c *Client) VPCIPv4CIDRs(ctx context.Context, mac string) ([]string, error) {
	v, err := c.metadata(ctx, macPath(mac, "vpc-ipv4-cidr-blocks"))
	if err != nil {
		return nil, err
	}
	return splitLines(v), nil
}

func macPath(mac, leaf string) string {
	return "network/interfaces/macs/" + mac + "/" + leaf
}

// InstanceRole is the instance's IAM role as IMDS tells it.
type InstanceRole struct {
	// ProfileARN is the instance profile's ARN (iam/info).
	ProfileARN string
	// RoleName is the role's name (iam/security-credentials/).
	RoleName string
}

// InstanceRole returns the instance profile and its role. An instance
// without a role yields an error wrapping ErrNotFound.
func (c *Client) InstanceRole(ctx context.Context) (InstanceRole, error) {
	var info *sdkimds.GetIAMInfoOutput
	err := c.lookup(ctx, "meta-data/iam/info", func(ctx context.Context) (err error) {
		info, err = c.sdk.GetIAMInfo(ctx, &sdkimds.GetIAMInfoInput{})
		return err
	})
	if err != nil {
		return InstanceRole{}, err
	}
	names, err := c.metadata(ctx, "iam/security-credentials/")
	if err != nil {
		return InstanceRole{}, err
	}
	role := InstanceRole{ProfileARN: info.InstanceProfileArn}
	if lines := splitLines(names); len(lines) > 0 {
		role.RoleName = lines[0]
	}
	if role.RoleName == "" {
		return role, fmt.Errorf("imds meta-data/iam/security-credentials/: no role: %w", ErrNotFound)
	}
	return role, nil
}
