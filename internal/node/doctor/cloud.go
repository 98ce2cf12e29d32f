package doctor

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/aws/smithy-go"

	"github.com/nodeboot/nodeboot/internal/aws/ec2"
	"github.com/nodeboot/nodeboot/internal/aws/eks"
)

// awsCallBound bounds each AWS call (retries included).
const awsCallBound = 10 * time.Second

// AWS is what the doctor asks AWS APIs, with the node's own credentials
// (its instance role) in its region: only calls the standard worker node
// policy grants.
type AWS interface {
	DescribeCluster(ctx context.Context, name string) (eks.ClusterInfo, error)
	InstanceSecurityGroups(ctx context.Context, instanceID string) ([]ec2.SecurityGroup, error)
	InstanceTypeLimits(ctx context.Context, instanceType string) (ec2.Limits, error)
}

// CloudEvidence is what AWS answered about this node and its cluster.
type CloudEvidence struct {
	// Err says why AWS was not asked (no region: the metadata service
	// failed; no credentials).
	Err     error
	Region  string
	Cluster string
	// ClusterErr is why the cluster's name is not known.
	ClusterErr error
	Info       eks.ClusterInfo
	InfoErr    error
	Groups     []ec2.SecurityGroup
	GroupsErr  error
	Type       ec2.Limits
	TypeErr    error
}

// gatherCloud asks AWS, in parallel, for the cluster (eks:DescribeCluster),
// the instance's security groups and its type's accelerators.
func (d Doctor) gatherCloud(ctx context.Context, id InstanceIdentity, cluster string, clusterErr error) CloudEvidence {
	ev := CloudEvidence{Region: id.Region, Cluster: cluster, ClusterErr: clusterErr}
	switch {
	case d.AWS == nil:
		ev.Err = errors.New("no AWS client")
	case id.Region == "":
		ev.Err = errors.New("the region is unknown: the instance metadata check failed")
	}
	if ev.Err != nil {
		return ev
	}
	api, err := d.AWS(ctx, id.Region)
	if err != nil {
		ev.Err = err
		return ev
	}
	ctx, cancel := context.WithTimeout(ctx, awsCallBound)
	defer cancel()
	var wg sync.WaitGroup
	if cluster != "" {
		wg.Go(func() { ev.Info, ev.InfoErr = api.DescribeCluster(ctx, cluster) })
	}
	wg.Go(func() { ev.Groups, ev.GroupsErr = api.InstanceSecurityGroups(ctx, id.InstanceID) })
	wg.Go(func() { ev.Type, ev.TypeErr = api.InstanceTypeLimits(ctx, id.InstanceType) })
	wg.Wait()
	return ev
}

// apiErrorCode returns the AWS error code of err ("ResourceNotFoundException",
// "AccessDeniedException"), or "".
func apiErrorCode(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode()
	}
	return ""
}
