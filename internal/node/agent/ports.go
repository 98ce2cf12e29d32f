package agent

import (
	"context"

	"github.com/nodeboot/nodeboot/internal/aws/imds"
	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// Metadata is what the agent reads from the instance metadata service.
type Metadata interface {
	UserData(ctx context.Context) ([]byte, error)
	Instance(ctx context.Context, want imds.Want) (hub.InstanceStatus, error)
	IPv6s(ctx context.Context, mac string) ([]string, error)
	VPCIPv4CIDRs(ctx context.Context, mac string) ([]string, error)
	InstanceLifecycle(ctx context.Context) (string, error)
}

// Cloud is what the agent asks AWS APIs, in the instance's region.
type Cloud interface {
	PrivateDNSName(ctx context.Context, instanceID string) (string, error)
	InstanceTypeLimits(ctx context.Context, instanceType string) (hub.NetworkLimits, error)
	DescribeCluster(ctx context.Context, name string) (ClusterInfo, error)
}

// CloudFactory builds a Cloud for the instance (its region; its identity
// keys node-local caches); it is called only when an API call is actually
// needed, so a complete config never loads the SDK config.
type CloudFactory func(ctx context.Context, instance hub.InstanceStatus) (Cloud, error)

// ClusterInfo is what eks:DescribeCluster tells about a cluster.
type ClusterInfo struct {
	Endpoint        string `json:"endpoint"`
	CA              []byte `json:"certificateAuthority"`
	ServiceIPv4CIDR string `json:"serviceIPv4CIDR,omitempty"`
	ServiceIPv6CIDR string `json:"serviceIPv6CIDR,omitempty"`
	IPFamily        string `json:"ipFamily,omitempty"`
	// ID is the cluster id (local clusters on Outposts).
	ID string `json:"id,omitempty"`
	// OutpostARN is set for local clusters on Outposts.
	OutpostARN string `json:"outpostARN,omitempty"`
}
