package ec2

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// TestStalledAPIIsBounded: an EC2 endpoint that accepts and never answers,
// or answers its headers and then stalls, costs each attempt its request
// timeout, and the call gives up after its attempts naming the action.
func TestStalledAPIIsBounded(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault func(s *awstest.EC2)
	}{
		{name: "accepts and never answers", fault: func(s *awstest.EC2) { s.Hang(awstest.ActionDescribeInstanceTypes) }},
		{name: "headers, then a stalled body", fault: func(s *awstest.EC2) { s.Trickle(awstest.ActionDescribeInstanceTypes, time.Hour) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			awstest.IsolateEnv(t)
			stub := awstest.NewEC2(t)
			stub.AddInstanceType(awstest.InstanceType{Name: "m5.large", MaxENIs: 3, IPv4PerENI: 10})
			tc.fault(stub)
			t.Setenv("AWS_ENDPOINT_URL_EC2", stub.URL)
			cfg, err := awsconfig.LoadNode(t.Context(), awsconfig.Options{
				Region: "us-west-2", MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond,
				RequestTimeout: 100 * time.Millisecond,
			})
			if err != nil {
				t.Fatal(err)
			}
			_, err = awstest.Within(t, func() (Limits, error) { return New(cfg, fastWait).InstanceTypeLimits(t.Context(), "m5.large") })
			if err == nil || !strings.Contains(err.Error(), "ec2 DescribeInstanceTypes m5.large: gave up after 2 attempts") {
				t.Fatalf("error = %v, want the call to give up after its 2 attempts", err)
			}
			// An attempt whose deadline passes before the stub sees it (a
			// loaded machine) is not counted there: never more than 2.
			if n := stub.Calls(awstest.ActionDescribeInstanceTypes); n > 2 {
				t.Errorf("calls = %d, want at most the 2 attempts", n)
			}
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
			awstest.IsolateEnv(t)
			stub := awstest.NewEC2(t)
			stub.AddInstance(awstest.Instance{ID: testInstanceID, PrivateDNSName: "n"})
			stub.Hang(awstest.ActionDescribeInstances)
			t.Setenv("AWS_ENDPOINT_URL_EC2", stub.URL)
			cfg, err := awsconfig.LoadNode(t.Context(), awsconfig.Options{
				Region: "us-west-2", MaxAttempts: tc.attempts, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond,
				RequestTimeout: 50 * time.Millisecond,
			})
			if err != nil {
				t.Fatal(err)
			}
			wait := NameWait{Timeout: 300 * time.Millisecond, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}
			_, err = awstest.Within(t, func() (string, error) { return New(cfg, wait).PrivateDNSName(t.Context(), testInstanceID) })
			if err == nil || errors.Is(err, ErrNoPrivateDNSName) {
				t.Fatalf("error = %v, want the API's failure rather than ErrNoPrivateDNSName", err)
			}
			if !strings.Contains(err.Error(), "ec2 DescribeInstances "+testInstanceID) || !strings.Contains(err.Error(), "timed out") {
				t.Errorf("error %q does not name the action and its timeout", err)
			}
		})
	}
}
