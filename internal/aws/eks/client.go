// Package eks discovers a cluster's API endpoint, CA and service CIDRs with
// eks:DescribeCluster (bootstrap.sh behaviour, which nodeadm dropped), and
// caches the answer on the node so that reboots do not call the API again.
package eks

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdkeks "github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/eks/types"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
)

// Sentinel errors of DescribeCluster.
var (
	// ErrClusterNotFound: the cluster does not exist in the region.
	ErrClusterNotFound = errors.New("cluster not found")
	// ErrClusterNotReady: the cluster has no endpoint or CA yet (e.g. CREATING).
	ErrClusterNotReady = errors.New("cluster has no endpoint or certificate authority yet")
)

// ClusterInfo is what a node needs to know about its cluster.
type ClusterInfo struct {
	Name     string `json:"name"`
	Endpoint string `json:"endpoint"`
	// CA is the PEM certificate authority bundle (decoded from base64).
	CA              []byte `json:"certificateAuthority"`
	ServiceIPv4CIDR string `json:"serviceIPv4CIDR,omitempty"`
	ServiceIPv6CIDR string `json:"serviceIPv6CIDR,omitempty"`
	// IPFamily is "ipv4" or "ipv6"; empty when the API did not say.
	IPFamily string `json:"ipFamily,omitempty"`
	// ID is the cluster ID (set for local clusters on Outposts).
	ID string `json:"id,omitempty"`
	// OutpostARN is the first Outpost of a local cluster on Outposts.
	OutpostARN string `json:"outpostARN,omitempty"`
	Status     string `json:"status,omitempty"`
	Version    string `json:"version,omitempty"`
	// ClusterSecurityGroupID is the security group EKS attaches to the
	// control plane's network interfaces (and to managed nodes);
	// SecurityGroupIDs are the additional ones given at creation.
	ClusterSecurityGroupID string   `json:"clusterSecurityGroupId,omitempty"`
	SecurityGroupIDs       []string `json:"securityGroupIds,omitempty"`
}

// ServiceCIDR returns the service CIDR of the cluster's IP family.
func (i ClusterInfo) ServiceCIDR() string {
	if i.IPFamily == string(types.IpFamilyIpv6) {
		return i.ServiceIPv6CIDR
	}
	return i.ServiceIPv4CIDR
}

// API is the part of the SDK EKS client this package calls.
type API interface {
	DescribeCluster(ctx context.Context, in *sdkeks.DescribeClusterInput, optFns ...func(*sdkeks.Options)) (*sdkeks.DescribeClusterOutput, error)
}

// Client calls EKS. It is safe for concurrent use.
type Client struct {
	api API
}

// New returns a client for cfg. Retries follow cfg's retryer: with
// awsconfig.LoadNode that is a bounded number of attempts with full-jitter
// exponential backoff on throttling (429, ThrottlingException) and 5xx. It
// does no I/O.
func New(cfg aws.Config) *Client {
	return NewWithAPI(sdkClient{sdkeks.NewFromConfig(cfg).DescribeCluster})
}

// sdkClient calls the SDK client's operation through a method value, so that
// the binary keeps only the operations called (see ec2.sdkClient).
type sdkClient struct {
	describeCluster func(context.Context, *sdkeks.DescribeClusterInput, ...func(*sdkeks.Options)) (*sdkeks.DescribeClusterOutput, error)
}

// DescribeCluster calls eks:DescribeCluster.
func (s sdkClient) DescribeCluster(ctx context.Context, in *sdkeks.DescribeClusterInput, optFns ...func(*sdkeks.Options)) (*sdkeks.DescribeClusterOutput, error) {
	return s.describeCluster(ctx, in, optFns...)
}

// NewWithAPI returns a client calling api.
func NewWithAPI(api API) *Client {
	return &Client{api: api}
}

// DescribeCluster returns the cluster's connection details.
func (c *Client) DescribeCluster(ctx context.Context, name string) (ClusterInfo, error) {
	out, err := c.api.DescribeCluster(ctx, &sdkeks.DescribeClusterInput{Name: aws.String(name)})
	if err != nil {
		var notFound *types.ResourceNotFoundException
		if errors.As(err, &notFound) {
			return ClusterInfo{}, fmt.Errorf("eks DescribeCluster %q: %w: %w", name, ErrClusterNotFound, err)
		}
		return ClusterInfo{}, awsconfig.CallError(fmt.Sprintf("eks DescribeCluster %q", name), err)
	}
	if out.Cluster == nil {
		return ClusterInfo{}, fmt.Errorf("eks DescribeCluster %q: empty answer: %w", name, ErrClusterNotReady)
	}
	return clusterInfoOf(name, out.Cluster)
}

func clusterInfoOf(name string, c *types.Cluster) (ClusterInfo, error) {
	info := ClusterInfo{
		Name:     name,
		Endpoint: aws.ToString(c.Endpoint),
		ID:       aws.ToString(c.Id),
		Status:   string(c.Status),
		Version:  aws.ToString(c.Version),
	}
	if n := c.KubernetesNetworkConfig; n != nil {
		info.ServiceIPv4CIDR = aws.ToString(n.ServiceIpv4Cidr)
		info.ServiceIPv6CIDR = aws.ToString(n.ServiceIpv6Cidr)
		info.IPFamily = string(n.IpFamily)
	}
	if v := c.ResourcesVpcConfig; v != nil {
		info.ClusterSecurityGroupID = aws.ToString(v.ClusterSecurityGroupId)
		info.SecurityGroupIDs = v.SecurityGroupIds
	}
	if o := c.OutpostConfig; o != nil && len(o.OutpostArns) > 0 {
		info.OutpostARN = o.OutpostArns[0]
	}
	if c.CertificateAuthority != nil && aws.ToString(c.CertificateAuthority.Data) != "" {
		ca, err := base64.StdEncoding.DecodeString(aws.ToString(c.CertificateAuthority.Data))
		if err != nil {
			return ClusterInfo{}, fmt.Errorf("eks DescribeCluster %q: certificateAuthority.data: %w", name, err)
		}
		info.CA = ca
	}
	if info.Endpoint == "" || len(info.CA) == 0 {
		return info, fmt.Errorf("eks DescribeCluster %q (status %s): %w", name, info.Status, ErrClusterNotReady)
	}
	return info, nil
}

// ClusterHome is where a cluster's own resources live: its VPC and its
// AWS account. The approver requires every node's instance to be there.
type ClusterHome struct {
	VPCID     string
	AccountID string
}

// ClusterHome describes the cluster and returns its VPC
// (resourcesVpcConfig.vpcId) and account (from its ARN,
// arn:PARTITION:eks:REGION:ACCOUNT:cluster/NAME). It fails when the answer
// lacks either.
func (c *Client) ClusterHome(ctx context.Context, name string) (ClusterHome, error) {
	out, err := c.api.DescribeCluster(ctx, &sdkeks.DescribeClusterInput{Name: aws.String(name)})
	if err != nil {
		var notFound *types.ResourceNotFoundException
		if errors.As(err, &notFound) {
			return ClusterHome{}, fmt.Errorf("eks DescribeCluster %q: %w: %w", name, ErrClusterNotFound, err)
		}
		return ClusterHome{}, awsconfig.CallError(fmt.Sprintf("eks DescribeCluster %q", name), err)
	}
	if out.Cluster == nil {
		return ClusterHome{}, fmt.Errorf("eks DescribeCluster %q: empty answer: %w", name, ErrClusterNotReady)
	}
	var home ClusterHome
	if v := out.Cluster.ResourcesVpcConfig; v != nil {
		home.VPCID = aws.ToString(v.VpcId)
	}
	if parts := strings.SplitN(aws.ToString(out.Cluster.Arn), ":", 6); len(parts) == 6 && parts[0] == "arn" {
		home.AccountID = parts[4]
	}
	if home.VPCID == "" || home.AccountID == "" {
		return ClusterHome{}, fmt.Errorf("eks DescribeCluster %q: the answer names no VPC (%q) or no account (ARN %q)",
			name, home.VPCID, aws.ToString(out.Cluster.Arn))
	}
	return home, nil
}
