// Package autoscaling reads and changes an EC2 Auto Scaling group and its
// launch template for the node-group rollout: describe the group with each
// instance's launch-template version number, set its sizes and version,
// create a launch-template version from the current one with a new AMI,
// and terminate an instance with or without lowering the desired capacity.
// It uses aws-sdk-go-v2 (autoscaling, ec2), so AWS_ENDPOINT_URL and
// AWS_ENDPOINT_URL_AUTO_SCALING / AWS_ENDPOINT_URL_EC2 apply.
package autoscaling

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdkasg "github.com/aws/aws-sdk-go-v2/service/autoscaling"
	sdkasgtypes "github.com/aws/aws-sdk-go-v2/service/autoscaling/types"
	sdkec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	sdkec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
)

// API is the part of the SDK Auto Scaling client this package calls.
type API interface {
	DescribeAutoScalingGroups(ctx context.Context, in *sdkasg.DescribeAutoScalingGroupsInput, optFns ...func(*sdkasg.Options)) (*sdkasg.DescribeAutoScalingGroupsOutput, error)
	UpdateAutoScalingGroup(ctx context.Context, in *sdkasg.UpdateAutoScalingGroupInput, optFns ...func(*sdkasg.Options)) (*sdkasg.UpdateAutoScalingGroupOutput, error)
	TerminateInstanceInAutoScalingGroup(ctx context.Context, in *sdkasg.TerminateInstanceInAutoScalingGroupInput, optFns ...func(*sdkasg.Options)) (*sdkasg.TerminateInstanceInAutoScalingGroupOutput, error)
}

// EC2API is the part of the SDK EC2 client this package calls.
type EC2API interface {
	DescribeLaunchTemplateVersions(ctx context.Context, in *sdkec2.DescribeLaunchTemplateVersionsInput, optFns ...func(*sdkec2.Options)) (*sdkec2.DescribeLaunchTemplateVersionsOutput, error)
	CreateLaunchTemplateVersion(ctx context.Context, in *sdkec2.CreateLaunchTemplateVersionInput, optFns ...func(*sdkec2.Options)) (*sdkec2.CreateLaunchTemplateVersionOutput, error)
	DescribeInstances(ctx context.Context, in *sdkec2.DescribeInstancesInput, optFns ...func(*sdkec2.Options)) (*sdkec2.DescribeInstancesOutput, error)
}

// Sentinel errors.
var (
	// ErrGroupNotFound: no group has the name.
	ErrGroupNotFound = errors.New("auto scaling group not found")
	// ErrInstanceNotFound: the instance is in no group (already terminated).
	ErrInstanceNotFound = errors.New("instance not found in any auto scaling group")
)

// Group is an Auto Scaling group as the rollout needs it.
type Group struct {
	Name                      string
	MinSize, MaxSize, Desired int32
	Zones                     []string
	// LaunchTemplate is the group's launch template; nil when the group
	// uses a launch configuration or a mixed instances policy.
	LaunchTemplate *LaunchTemplate
	// MixedInstancesPolicy is set when the group uses one.
	MixedInstancesPolicy bool
	Instances            []Instance
}

// LaunchTemplate is a launch template and a version setting ("7",
// "$Latest" or "$Default").
type LaunchTemplate struct {
	ID, Name, Version string
}

// Instance is one instance of a group.
type Instance struct {
	ID             string
	Zone           string
	LifecycleState string
	HealthStatus   string
	// LaunchTemplateID and LaunchTemplateVersion say what the instance was
	// launched from; the version is always a number here ("" when the
	// instance uses no launch template).
	LaunchTemplateID      string
	LaunchTemplateVersion string
}

// Client calls Auto Scaling and EC2. It is safe for concurrent use.
type Client struct {
	asg API
	ec2 EC2API
}

// New returns a client for cfg (see awsconfig.Load). It does no I/O.
func New(cfg aws.Config) *Client {
	a, e := sdkasg.NewFromConfig(cfg), sdkec2.NewFromConfig(cfg)
	return NewWithAPI(
		sdkAutoScaling{a.DescribeAutoScalingGroups, a.UpdateAutoScalingGroup, a.TerminateInstanceInAutoScalingGroup},
		sdkEC2{e.DescribeLaunchTemplateVersions, e.CreateLaunchTemplateVersion, e.DescribeInstances})
}

// sdkAutoScaling and sdkEC2 call the SDK clients' operations through method
// values. Held in an interface (or a struct field), *ec2.Client would keep
// all its ~700 operations in the binary (about 21 MB, and *autoscaling.Client
// 2 MB): once any linked code looks methods up by name (text/template does),
// the linker keeps every exported method of every type that may end up in an
// interface; and the controller's resident memory follows its binary's size.
type sdkAutoScaling struct {
	describeGroups    func(context.Context, *sdkasg.DescribeAutoScalingGroupsInput, ...func(*sdkasg.Options)) (*sdkasg.DescribeAutoScalingGroupsOutput, error)
	updateGroup       func(context.Context, *sdkasg.UpdateAutoScalingGroupInput, ...func(*sdkasg.Options)) (*sdkasg.UpdateAutoScalingGroupOutput, error)
	terminateInstance func(context.Context, *sdkasg.TerminateInstanceInAutoScalingGroupInput, ...func(*sdkasg.Options)) (*sdkasg.TerminateInstanceInAutoScalingGroupOutput, error)
}

// DescribeAutoScalingGroups calls autoscaling:DescribeAutoScalingGroups.
func (s sdkAutoScaling) DescribeAutoScalingGroups(ctx context.Context, in *sdkasg.DescribeAutoScalingGroupsInput, optFns ...func(*sdkasg.Options)) (*sdkasg.DescribeAutoScalingGroupsOutput, error) {
	return s.describeGroups(ctx, in, optFns...)
}

// UpdateAutoScalingGroup calls autoscaling:UpdateAutoScalingGroup.
func (s sdkAutoScaling) UpdateAutoScalingGroup(ctx context.Context, in *sdkasg.UpdateAutoScalingGroupInput, optFns ...func(*sdkasg.Options)) (*sdkasg.UpdateAutoScalingGroupOutput, error) {
	return s.updateGroup(ctx, in, optFns...)
}

// TerminateInstanceInAutoScalingGroup calls
// autoscaling:TerminateInstanceInAutoScalingGroup.
func (s sdkAutoScaling) TerminateInstanceInAutoScalingGroup(ctx context.Context, in *sdkasg.TerminateInstanceInAutoScalingGroupInput, optFns ...func(*sdkasg.Options)) (*sdkasg.TerminateInstanceInAutoScalingGroupOutput, error) {
	return s.terminateInstance(ctx, in, optFns...)
}

type sdkEC2 struct {
	describeVersions  func(context.Context, *sdkec2.DescribeLaunchTemplateVersionsInput, ...func(*sdkec2.Options)) (*sdkec2.DescribeLaunchTemplateVersionsOutput, error)
	createVersion     func(context.Context, *sdkec2.CreateLaunchTemplateVersionInput, ...func(*sdkec2.Options)) (*sdkec2.CreateLaunchTemplateVersionOutput, error)
	describeInstances func(context.Context, *sdkec2.DescribeInstancesInput, ...func(*sdkec2.Options)) (*sdkec2.DescribeInstancesOutput, error)
}

// DescribeLaunchTemplateVersions calls ec2:DescribeLaunchTemplateVersions.
func (s sdkEC2) DescribeLaunchTemplateVersions(ctx context.Context, in *sdkec2.DescribeLaunchTemplateVersionsInput, optFns ...func(*sdkec2.Options)) (*sdkec2.DescribeLaunchTemplateVersionsOutput, error) {
	return s.describeVersions(ctx, in, optFns...)
}

// CreateLaunchTemplateVersion calls ec2:CreateLaunchTemplateVersion.
func (s sdkEC2) CreateLaunchTemplateVersion(ctx context.Context, in *sdkec2.CreateLaunchTemplateVersionInput, optFns ...func(*sdkec2.Options)) (*sdkec2.CreateLaunchTemplateVersionOutput, error) {
	return s.createVersion(ctx, in, optFns...)
}

// DescribeInstances calls ec2:DescribeInstances.
func (s sdkEC2) DescribeInstances(ctx context.Context, in *sdkec2.DescribeInstancesInput, optFns ...func(*sdkec2.Options)) (*sdkec2.DescribeInstancesOutput, error) {
	return s.describeInstances(ctx, in, optFns...)
}

// NewWithAPI returns a client calling asg and ec2.
func NewWithAPI(asg API, ec2 EC2API) *Client { return &Client{asg: asg, ec2: ec2} }

// DescribeGroup returns the named group with every instance's
// launch-template version resolved to a number.
func (c *Client) DescribeGroup(ctx context.Context, name string) (Group, error) {
	out, err := c.asg.DescribeAutoScalingGroups(ctx, &sdkasg.DescribeAutoScalingGroupsInput{AutoScalingGroupNames: []string{name}})
	if err != nil {
		return Group{}, apiError("autoscaling DescribeAutoScalingGroups", err)
	}
	if len(out.AutoScalingGroups) == 0 {
		return Group{}, fmt.Errorf("%w: %s", ErrGroupNotFound, name)
	}
	g := groupOf(out.AutoScalingGroups[0])
	if err := c.resolveInstanceVersions(ctx, g.Instances); err != nil {
		return Group{}, err
	}
	return g, nil
}

// ResolveVersion turns a version setting ("$Latest", "$Default" or a
// number) of a launch template into the version number.
func (c *Client) ResolveVersion(ctx context.Context, templateID, version string) (string, error) {
	out, err := c.ec2.DescribeLaunchTemplateVersions(ctx, &sdkec2.DescribeLaunchTemplateVersionsInput{
		LaunchTemplateId: aws.String(templateID), Versions: []string{version},
	})
	if err != nil {
		return "", apiError("ec2 DescribeLaunchTemplateVersions", err)
	}
	if len(out.LaunchTemplateVersions) != 1 || out.LaunchTemplateVersions[0].VersionNumber == nil {
		return "", fmt.Errorf("ec2 DescribeLaunchTemplateVersions: launch template %s version %s: %d versions returned", templateID, version, len(out.LaunchTemplateVersions))
	}
	return strconv.FormatInt(*out.LaunchTemplateVersions[0].VersionNumber, 10), nil
}

// CreateVersion creates a version of a launch template from sourceVersion
// with only the AMI replaced, and returns its number. clientToken makes a
// retry (also after a restart) return the version the first call created.
func (c *Client) CreateVersion(ctx context.Context, templateID, sourceVersion, imageID, description, clientToken string) (string, error) {
	out, err := c.ec2.CreateLaunchTemplateVersion(ctx, &sdkec2.CreateLaunchTemplateVersionInput{
		LaunchTemplateId:   aws.String(templateID),
		SourceVersion:      aws.String(sourceVersion),
		LaunchTemplateData: &sdkec2types.RequestLaunchTemplateData{ImageId: aws.String(imageID)},
		VersionDescription: aws.String(description),
		ClientToken:        aws.String(clientToken),
	})
	if err != nil {
		return "", apiError("ec2 CreateLaunchTemplateVersion", err)
	}
	if out.LaunchTemplateVersion == nil || out.LaunchTemplateVersion.VersionNumber == nil {
		return "", errors.New("ec2 CreateLaunchTemplateVersion: no version in the answer")
	}
	return strconv.FormatInt(*out.LaunchTemplateVersion.VersionNumber, 10), nil
}

// Update is a change of a group; nil fields stay as they are.
type Update struct {
	MinSize, MaxSize, Desired *int32
	LaunchTemplate            *LaunchTemplate
}

// UpdateGroup applies u to the named group.
func (c *Client) UpdateGroup(ctx context.Context, name string, u Update) error {
	in := &sdkasg.UpdateAutoScalingGroupInput{
		AutoScalingGroupName: aws.String(name), MinSize: u.MinSize, MaxSize: u.MaxSize, DesiredCapacity: u.Desired,
	}
	if lt := u.LaunchTemplate; lt != nil {
		in.LaunchTemplate = &sdkasgtypes.LaunchTemplateSpecification{LaunchTemplateId: aws.String(lt.ID), Version: aws.String(lt.Version)}
	}
	if _, err := c.asg.UpdateAutoScalingGroup(ctx, in); err != nil {
		return apiError("autoscaling UpdateAutoScalingGroup", err)
	}
	return nil
}

// TerminateInstance terminates an instance through its group; decrement
// lowers the desired capacity, otherwise the group launches a replacement.
// An instance in no group yields ErrInstanceNotFound.
func (c *Client) TerminateInstance(ctx context.Context, id string, decrement bool) error {
	_, err := c.asg.TerminateInstanceInAutoScalingGroup(ctx, &sdkasg.TerminateInstanceInAutoScalingGroupInput{
		InstanceId: aws.String(id), ShouldDecrementDesiredCapacity: aws.Bool(decrement),
	})
	if err != nil {
		if isInstanceNotFound(err) {
			return fmt.Errorf("%w: %s", ErrInstanceNotFound, id)
		}
		return apiError("autoscaling TerminateInstanceInAutoScalingGroup", err)
	}
	return nil
}

// apiError wraps an SDK error with the operation and, when the SDK gave up
// retrying, the number of attempts it made.
func apiError(op string, err error) error {
	if n := awsconfig.Attempts(err); n > 0 {
		return fmt.Errorf("%s: gave up after %d attempts: %w", op, n, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// isInstanceNotFound recognises the ValidationError Auto Scaling answers
// for an instance that belongs to no group.
func isInstanceNotFound(err error) bool {
	var apiErr smithy.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode() == "ValidationError" &&
		containsFold(apiErr.ErrorMessage(), "Instance Id not found")
}
