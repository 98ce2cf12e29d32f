package awsconfig

import (
	"testing"
	"time"

	sdkec2 "github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

func TestLoadAttemptBudget(t *testing.T) {
	tests := []struct {
		name        string
		envAttempts string // "" = unset
		optAttempts int
		want        int
	}{
		{name: "default when nothing is set: the node budget", want: DefaultNodeMaxAttempts},
		{name: "caller budget", optAttempts: 3, want: 3},
		{name: "AWS_MAX_ATTEMPTS wins over default", envAttempts: "12", want: 12},
		{name: "AWS_MAX_ATTEMPTS wins over caller budget", envAttempts: "2", optAttempts: 5, want: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			awstest.IsolateEnv(t)
			if tc.envAttempts != "" {
				t.Setenv("AWS_MAX_ATTEMPTS", tc.envAttempts)
			}
			cfg, err := LoadNode(t.Context(), Options{Region: "eu-west-1", MaxAttempts: tc.optAttempts})
			if err != nil {
				t.Fatal(err)
			}
			if cfg.RetryMaxAttempts != tc.want {
				t.Errorf("RetryMaxAttempts = %d, want %d", cfg.RetryMaxAttempts, tc.want)
			}
			if got := cfg.Retryer().MaxAttempts(); got != tc.want {
				t.Errorf("Retryer().MaxAttempts() = %d, want %d", got, tc.want)
			}
			if cfg.Region != "eu-west-1" {
				t.Errorf("Region = %q, want eu-west-1", cfg.Region)
			}
		})
	}
}

func TestLoadKeepsEndpointOverride(t *testing.T) {
	awstest.IsolateEnv(t)
	t.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")
	cfg, err := LoadNode(t.Context(), Options{Region: "us-west-2"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BaseEndpoint == nil || *cfg.BaseEndpoint != "http://127.0.0.1:9" {
		t.Errorf("BaseEndpoint = %v, want http://127.0.0.1:9", cfg.BaseEndpoint)
	}
}

// TestCallBudget: a node's API call keeps retrying an endpoint that fails
// for longer than the cluster-side clients' 8 attempts, and succeeds once it
// answers; an endpoint that never answers ends the call when the budget is
// spent. Delays and the budget are scaled down; only the outcomes are
// checked.
func TestCallBudget(t *testing.T) {
	for _, tc := range []struct {
		name     string
		failures int
		budget   time.Duration
		wantErr  bool
	}{
		{name: "an outage of 12 attempts is ridden out", failures: 12, budget: time.Minute},
		{name: "an outage past the budget ends the call", failures: 1000, budget: 2 * time.Second, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			awstest.IsolateEnv(t)
			ec2 := awstest.NewEC2(t)
			ec2.AddInstance(awstest.Instance{ID: "i-1", PrivateDNSName: "ip-10-0-0-1.ec2.internal"})
			unavailable := awstest.Fault{Status: 503, Code: "Unavailable", Message: "down"}
			for range tc.failures {
				ec2.FailNext(awstest.ActionDescribeInstances, unavailable)
			}
			t.Setenv("AWS_ENDPOINT_URL_EC2", ec2.URL)
			cfg, err := LoadNode(t.Context(), Options{Region: "us-west-2", BaseDelay: time.Millisecond, MaxDelay: 20 * time.Millisecond, CallBudget: tc.budget})
			if err != nil {
				t.Fatal(err)
			}
			_, err = sdkec2.NewFromConfig(cfg).DescribeInstances(t.Context(), &sdkec2.DescribeInstancesInput{InstanceIds: []string{"i-1"}})
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v (calls %d)", err, tc.wantErr, ec2.Calls(awstest.ActionDescribeInstances))
			}
			if !tc.wantErr && ec2.Calls(awstest.ActionDescribeInstances) != tc.failures+1 {
				t.Errorf("calls = %d, want %d", ec2.Calls(awstest.ActionDescribeInstances), tc.failures+1)
			}
		})
	}
}
