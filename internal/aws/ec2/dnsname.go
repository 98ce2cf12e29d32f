package ec2

import (
	"context"
	"errors"
	"fmt"
	"time"

	sdkec2 "github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
)

// ErrNoPrivateDNSName is wrapped when the instance still has no private DNS
// name (or is still unknown to the API) when the wait's deadline passes.
var ErrNoPrivateDNSName = errors.New("instance has no private DNS name yet")

// errWaitExpired is the cancellation cause of the wait's own deadline.
var errWaitExpired = errors.New("private DNS name wait expired")

// PrivateDNSName returns the instance's PrivateDnsName. It polls while the
// name is empty or the instance is not yet visible (InvalidInstanceID.NotFound,
// eventual consistency after launch), pausing with full-jitter exponential
// backoff, until the NameWait timeout. Throttling and 5xx are retried inside
// each call by the SDK retryer; any other API error (e.g. UnauthorizedOperation)
// fails at once.
func (c *Client) PrivateDNSName(ctx context.Context, instanceID string) (string, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, c.wait.Timeout, errWaitExpired)
	defer cancel()
	backoff := awsconfig.FullJitter{BaseDelay: c.wait.BaseDelay, MaxDelay: c.wait.MaxDelay}
	start := time.Now()
	answered := false // some call said "no name yet" (empty, or not yet visible)
	for poll := 1; ; poll++ {
		name, err := c.describeName(ctx, instanceID)
		switch {
		case name != "":
			return name, nil
		case err == nil || errorCode(err) == "InvalidInstanceID.NotFound":
			answered = true
		case ctx.Err() == nil:
			return "", err
		}
		// Here the name is empty, the instance not yet visible, or the
		// deadline interrupted the call (then err says how).
		if serr := sleep(ctx, backoff.Delay(poll)); serr != nil {
			return "", waitError(ctx, instanceID, poll, time.Since(start), unanswered(answered, err))
		}
	}
}

// unanswered returns err, the failure of the last call, when no call of the
// wait answered; once one did, the wait ended for want of a name.
func unanswered(answered bool, err error) error {
	if answered {
		return nil
	}
	return err
}

// waitError says why the name wait ended after polls calls: the caller's
// context, or the wait's own deadline, and then whether no call answered
// (callErr, the last call's failure) or the instance had no name.
func waitError(ctx context.Context, instanceID string, polls int, waited time.Duration, callErr error) error {
	if !errors.Is(context.Cause(ctx), errWaitExpired) {
		return fmt.Errorf("ec2 DescribeInstances %s: %w", instanceID, ctx.Err())
	}
	if callErr != nil {
		return fmt.Errorf("ec2 DescribeInstances %s: no answer before the %s name wait ended: %w",
			instanceID, waited.Round(time.Millisecond), callErr)
	}
	return fmt.Errorf("ec2 DescribeInstances %s: still no name after %d calls in %s: %w",
		instanceID, polls, waited.Round(time.Millisecond), ErrNoPrivateDNSName)
}

// describeName makes one DescribeInstances call; "" without error means the
// instance has no name yet.
func (c *Client) describeName(ctx context.Context, instanceID string) (string, error) {
	out, err := c.api.DescribeInstances(ctx, &sdkec2.DescribeInstancesInput{InstanceIds: []string{instanceID}})
	if err != nil {
		return "", apiError("DescribeInstances "+instanceID, err)
	}
	for _, r := range out.Reservations {
		for _, in := range r.Instances {
			if in.InstanceId != nil && *in.InstanceId == instanceID && in.PrivateDnsName != nil {
				return *in.PrivateDnsName, nil
			}
		}
	}
	return "", nil
}

// sleep waits d or until ctx ends, returning ctx's error then.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
