// Package asg implements nodegroup.Group for an EC2 Auto Scaling group with
// a launch template (internal/aws/autoscaling).
package asg

import (
	"context"
	"errors"
	"fmt"

	"github.com/nodeboot/nodeboot/internal/aws/autoscaling"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
)

// ASG is a nodegroup.Group backed by an EC2 Auto Scaling group.
type ASG struct {
	// Name is the Auto Scaling group's name.
	Name   string
	Client *autoscaling.Client
}

// Describe reads the group and its instances.
func (a *ASG) Describe(ctx context.Context) (nodegroup.State, error) {
	g, err := a.Client.DescribeGroup(ctx, a.Name)
	if errors.Is(err, autoscaling.ErrGroupNotFound) {
		return nodegroup.State{}, fmt.Errorf("%w: %w", nodegroup.ErrGroupGone, err)
	}
	if err != nil {
		return nodegroup.State{}, err
	}
	st := nodegroup.State{Name: g.Name, MinSize: g.MinSize, MaxSize: g.MaxSize, Desired: g.Desired, Zones: g.Zones}
	if lt := g.LaunchTemplate; lt != nil {
		st.LaunchTemplate = &nodegroup.LaunchTemplate{ID: lt.ID, Name: lt.Name, Version: lt.Version}
	}
	for _, in := range g.Instances {
		st.Instances = append(st.Instances, nodegroup.Instance{ID: in.ID, Zone: in.Zone, Version: in.LaunchTemplateVersion, LifecycleState: in.LifecycleState})
	}
	return st, nil
}

// ResolveVersion resolves a version setting of the launch template.
func (a *ASG) ResolveVersion(ctx context.Context, templateID, version string) (string, error) {
	return a.Client.ResolveVersion(ctx, templateID, version)
}

// CreateVersion creates a launch-template version with a new image; a
// symbolic source version is resolved first, because EC2 wants a number.
func (a *ASG) CreateVersion(ctx context.Context, templateID, sourceVersion, imageID, clientToken string) (string, error) {
	if !nodegroup.IsVersionNumber(sourceVersion) {
		n, err := a.Client.ResolveVersion(ctx, templateID, sourceVersion)
		if err != nil {
			return "", err
		}
		sourceVersion = n
	}
	desc := fmt.Sprintf("nodeboot rollout: version %s with image %s", sourceVersion, imageID)
	return a.Client.CreateVersion(ctx, templateID, sourceVersion, imageID, desc, clientToken)
}

// SetSizes changes min, max and desired capacity in one call.
func (a *ASG) SetSizes(ctx context.Context, s nodegroup.Sizes) error {
	return a.Client.UpdateGroup(ctx, a.Name, autoscaling.Update{MinSize: s.MinSize, MaxSize: s.MaxSize, Desired: s.Desired})
}

// SetLaunchTemplate points the group at a launch-template version.
func (a *ASG) SetLaunchTemplate(ctx context.Context, lt nodegroup.LaunchTemplate) error {
	return a.Client.UpdateGroup(ctx, a.Name, autoscaling.Update{LaunchTemplate: &autoscaling.LaunchTemplate{ID: lt.ID, Version: lt.Version}})
}

// TerminateInstance terminates an instance through the group.
func (a *ASG) TerminateInstance(ctx context.Context, id string, decrement bool) error {
	err := a.Client.TerminateInstance(ctx, id, decrement)
	if errors.Is(err, autoscaling.ErrInstanceNotFound) {
		return fmt.Errorf("%w: %w", nodegroup.ErrInstanceGone, err)
	}
	return err
}
