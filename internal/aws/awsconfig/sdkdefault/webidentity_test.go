package sdkdefault

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// TestCredentialChainRequestBodiesEndCleanlyOnceClosed: the STS client the
// default chain builds for IRSA (AssumeRoleWithWebIdentity, a POST with a
// body, made at every credential refresh of a cluster-side binary) hands
// net/http a body without WriteTo too: the workaround for
// aws/aws-sdk-go-v2#2737 must reach the clients the SDK's loader builds
// itself, not only those built from the loaded configuration.
func TestCredentialChainRequestBodiesEndCleanlyOnceClosed(t *testing.T) {
	awstest.IsolateEnv(t)
	awstest.Unsetenv(t, "AWS_ACCESS_KEY_ID")
	awstest.Unsetenv(t, "AWS_SECRET_ACCESS_KEY")
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte("a-web-identity-token"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/approver")
	t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", token)
	capture := &captureBody{}
	cfg, err := load(t.Context(), awsconfig.Options{Region: "us-west-2", MaxAttempts: 1}, config.WithHTTPClient(capture))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.Credentials.Retrieve(t.Context()); !errors.Is(err, errCaptured) || capture.body == nil {
		t.Fatalf("Retrieve = %v with body %v; want the STS request captured with its body", err, capture.body)
	}
	if _, ok := capture.body.(io.WriterTo); ok {
		t.Errorf("STS request body %T is an io.WriterTo", capture.body)
	}
	if err := capture.body.Close(); err != nil {
		t.Fatal(err)
	}
	if n, err := io.Copy(io.Discard, capture.body); n != 0 || err != nil {
		t.Errorf("copying the closed body = %d bytes, %v; want 0 and a clean end", n, err)
	}
}
