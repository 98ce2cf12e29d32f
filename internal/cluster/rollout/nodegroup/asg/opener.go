package asg

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/aws/autoscaling"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
)

// Opener opens the Auto Scaling group a rollout names, with one AWS client
// per region (built on first use).
type Opener struct {
	// Load returns the AWS configuration for a region ("" means the
	// default region of the environment).
	Load func(ctx context.Context, region string) (aws.Config, error)

	mu      sync.Mutex
	clients map[string]*autoscaling.Client
}

// Open returns the group; it does no I/O after the region's first use.
func (o *Opener) Open(ctx context.Context, ref rolloutv1.NodeGroupReference) (nodegroup.Group, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	c, ok := o.clients[ref.Region]
	if !ok {
		cfg, err := o.Load(ctx, ref.Region)
		if err != nil {
			return nil, err
		}
		c = autoscaling.New(cfg)
		if o.clients == nil {
			o.clients = map[string]*autoscaling.Client{}
		}
		o.clients[ref.Region] = c
	}
	return &ASG{Name: ref.AutoScalingGroupName, Client: c}, nil
}
