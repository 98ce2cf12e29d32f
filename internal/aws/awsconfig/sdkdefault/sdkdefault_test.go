package sdkdefault

import (
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

func TestLoadAttemptBudget(t *testing.T) {
	tests := []struct {
		name        string
		envAttempts string // "" = unset
		optAttempts int
		want        int
	}{
		{name: "default when nothing is set", want: awsconfig.DefaultMaxAttempts},
		{name: "caller budget", optAttempts: 3, want: 3},
		{name: "AWS_MAX_ATTEMPTS wins over caller budget", envAttempts: "2", optAttempts: 5, want: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			awstest.IsolateEnv(t)
			if tc.envAttempts != "" {
				t.Setenv("AWS_MAX_ATTEMPTS", tc.envAttempts)
			}
			cfg, err := Load(t.Context(), awsconfig.Options{Region: "eu-west-1", MaxAttempts: tc.optAttempts})
			if err != nil {
				t.Fatal(err)
			}
			if cfg.RetryMaxAttempts != tc.want || cfg.Retryer().MaxAttempts() != tc.want {
				t.Errorf("attempts = %d / %d, want %d", cfg.RetryMaxAttempts, cfg.Retryer().MaxAttempts(), tc.want)
			}
			if cfg.Region != "eu-west-1" {
				t.Errorf("Region = %q, want eu-west-1", cfg.Region)
			}
		})
	}
}

// TestLoadReadsTheWholeChain proves what the node loader does not do: a web
// identity setting (IRSA) is honoured, here failing on the missing token file.
func TestLoadReadsTheWholeChain(t *testing.T) {
	awstest.IsolateEnv(t)
	awstest.Unsetenv(t, "AWS_ACCESS_KEY_ID")
	awstest.Unsetenv(t, "AWS_SECRET_ACCESS_KEY")
	t.Setenv("AWS_ROLE_ARN", "arn:aws:iam::111122223333:role/approver")
	t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", t.TempDir()+"/missing-token")
	t.Setenv("AWS_MAX_ATTEMPTS", "1")
	cfg, err := Load(t.Context(), awsconfig.Options{Region: "us-west-2"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cfg.Credentials.Retrieve(t.Context())
	if err == nil || !strings.Contains(err.Error(), "missing-token") {
		t.Fatalf("Retrieve error = %v, want the web identity token file to be read", err)
	}
}
