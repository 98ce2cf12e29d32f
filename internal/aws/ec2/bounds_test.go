package ec2

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// TestStalledAPIIsBounded: an EC2 endpoint that accepts and never answers,
// or answers its headers and then stalls, costs each attempt its request
// timeout, and the call gives up after its attempts naming the action.
func TestStalledAPIIsBounded(t *testing.T) {
	for _, stall := range awstest.Stalls() {
		t.Run(stall.Name, func(t *testing.T) {
			c, stub := newBoundedClient(t, 2, 100*time.Millisecond, fastWait)
			stub.AddInstanceType(awstest.InstanceType{Name: "m5.large", MaxENIs: 3, IPv4PerENI: 10})
			stall.Apply(&stub.Behavior, awstest.ActionDescribeInstanceTypes)
			_, err := awstest.Within(t, func() (Limits, error) { return c.InstanceTypeLimits(t.Context(), "m5.large") })
			awstest.CheckGaveUp(t, err, "ec2 DescribeInstanceTypes m5.large: gave up after 2 attempts", stub.Calls(awstest.ActionDescribeInstanceTypes), 2)
		})
	}
}

// TestNameWaitOnStalledAPISaysSo: when DescribeInstances never answers, the
// bounded name wait ends with the API's failure, not with a claim that the
// instance has no name, whether the call's retries or the wait's deadline
// run out first.
func TestNameWaitOnStalledAPISaysSo(t *testing.T) {
	for _, tc := range []struct {
		name     string
		attempts int
	}{
		{name: "retries run out first", attempts: 1},
		{name: "the wait's deadline comes first", attempts: 1_000_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wait := NameWait{Timeout: 300 * time.Millisecond, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}
			c, stub := newBoundedClient(t, tc.attempts, 50*time.Millisecond, wait)
			stub.AddInstance(awstest.Instance{ID: testInstanceID, PrivateDNSName: "n"})
			stub.Hang(awstest.ActionDescribeInstances)
			_, err := awstest.Within(t, func() (string, error) { return c.PrivateDNSName(t.Context(), testInstanceID) })
			if err == nil || errors.Is(err, ErrNoPrivateDNSName) {
				t.Fatalf("error = %v, want the API's failure rather than ErrNoPrivateDNSName", err)
			}
			if !strings.Contains(err.Error(), "ec2 DescribeInstances "+testInstanceID) || !strings.Contains(err.Error(), "timed out") {
				t.Errorf("error %q does not name the action and its timeout", err)
			}
		})
	}
}
