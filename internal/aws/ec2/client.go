// Package ec2 asks the EC2 API what IMDS cannot tell: the instance's private
// DNS name (the EKS node name) and an instance type's network limits.
package ec2

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdkec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/smithy-go"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
)

// API is the part of the SDK EC2 client this package calls.
type API interface {
	DescribeInstances(ctx context.Context, in *sdkec2.DescribeInstancesInput, optFns ...func(*sdkec2.Options)) (*sdkec2.DescribeInstancesOutput, error)
	DescribeInstanceTypes(ctx context.Context, in *sdkec2.DescribeInstanceTypesInput, optFns ...func(*sdkec2.Options)) (*sdkec2.DescribeInstanceTypesOutput, error)
	DescribeSecurityGroups(ctx context.Context, in *sdkec2.DescribeSecurityGroupsInput, optFns ...func(*sdkec2.Options)) (*sdkec2.DescribeSecurityGroupsOutput, error)
}

// Default bounds of the wait for a non-empty PrivateDnsName. nodeadm waits up
// to 10 minutes with 15–120 s pauses; the name is normally there on the first
// call, and when it is not, it appears within seconds, so nodeboot polls
// sooner. It waits 6 minutes: longer than one call's budget
// (awsconfig.DefaultCallBudget), so that an EC2 endpoint unreachable for up
// to 5 minutes is waited for.
const (
	DefaultNameTimeout   = 6 * time.Minute
	DefaultNameBaseDelay = time.Second
	DefaultNameMaxDelay  = 15 * time.Second
)

// NameWait bounds the wait for a non-empty PrivateDnsName.
type NameWait struct {
	// Timeout is the overall deadline of PrivateDNSName; 0 means
	// DefaultNameTimeout.
	Timeout time.Duration
	// BaseDelay and MaxDelay shape the full-jitter pauses between polls; 0
	// means 1 s and 15 s.
	BaseDelay, MaxDelay time.Duration
}

func (w NameWait) withDefaults() NameWait {
	if w.Timeout <= 0 {
		w.Timeout = DefaultNameTimeout
	}
	if w.BaseDelay <= 0 {
		w.BaseDelay = DefaultNameBaseDelay
	}
	if w.MaxDelay <= 0 {
		w.MaxDelay = DefaultNameMaxDelay
	}
	return w
}

// Client calls EC2. It is safe for concurrent use.
type Client struct {
	api  API
	wait NameWait
}

// New returns a client for cfg (see awsconfig.LoadNode, which applies the retry
// policy and the endpoint overrides). It does no I/O.
func New(cfg aws.Config, wait NameWait) *Client {
	c := sdkec2.NewFromConfig(cfg)
	return NewWithAPI(sdkClient{c.DescribeInstances, c.DescribeInstanceTypes, c.DescribeSecurityGroups}, wait)
}

// sdkClient calls the SDK client's operations through method values. Held in
// the API interface itself (or in a struct field), *ec2.Client would keep all
// its ~700 operations in the binary, about 20 MB: once any linked code looks
// methods up by name (text/template and godbus do), the linker keeps every
// exported method of every type that may end up in an interface.
type sdkClient struct {
	describeInstances      func(context.Context, *sdkec2.DescribeInstancesInput, ...func(*sdkec2.Options)) (*sdkec2.DescribeInstancesOutput, error)
	describeInstanceTypes  func(context.Context, *sdkec2.DescribeInstanceTypesInput, ...func(*sdkec2.Options)) (*sdkec2.DescribeInstanceTypesOutput, error)
	describeSecurityGroups func(context.Context, *sdkec2.DescribeSecurityGroupsInput, ...func(*sdkec2.Options)) (*sdkec2.DescribeSecurityGroupsOutput, error)
}

// DescribeSecurityGroups calls ec2:DescribeSecurityGroups.
func (s sdkClient) DescribeSecurityGroups(ctx context.Context, in *sdkec2.DescribeSecurityGroupsInput, optFns ...func(*sdkec2.Options)) (*sdkec2.DescribeSecurityGroupsOutput, error) {
	return s.describeSecurityGroups(ctx, in, optFns...)
}

// DescribeInstances calls ec2:DescribeInstances.
func (s sdkClient) DescribeInstances(ctx context.Context, in *sdkec2.DescribeInstancesInput, optFns ...func(*sdkec2.Options)) (*sdkec2.DescribeInstancesOutput, error) {
	return s.describeInstances(ctx, in, optFns...)
}

// DescribeInstanceTypes calls ec2:DescribeInstanceTypes.
func (s sdkClient) DescribeInstanceTypes(ctx context.Context, in *sdkec2.DescribeInstanceTypesInput, optFns ...func(*sdkec2.Options)) (*sdkec2.DescribeInstanceTypesOutput, error) {
	return s.describeInstanceTypes(ctx, in, optFns...)
}

// NewWithAPI returns a client calling api.
func NewWithAPI(api API, wait NameWait) *Client {
	return &Client{api: api, wait: wait.withDefaults()}
}

// apiError wraps an SDK error with the operation and, when the SDK gave up
// retrying, the number of attempts it made.
func apiError(op string, err error) error {
	return awsconfig.CallError("ec2 "+op, err)
}

// errorCode returns the AWS error code of err, or "".
func errorCode(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode()
	}
	return ""
}
