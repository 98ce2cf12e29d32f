package awsconfig

import (
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

func TestLoadAttemptBudget(t *testing.T) {
	tests := []struct {
		name        string
		envAttempts string // "" = unset
		optAttempts int
		want        int
	}{
		{name: "default when nothing is set", want: DefaultMaxAttempts},
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
