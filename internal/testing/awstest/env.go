package awstest

import (
	"os"
	"path/filepath"
	"testing"
)

// awsEnv are the variables that could make a test reach a real AWS endpoint,
// read the developer's credentials, or route through a proxy.
var awsEnv = []string{
	"AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION",
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
	"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_MAX_ATTEMPTS", "AWS_RETRY_MODE",
	"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_EC2", "AWS_ENDPOINT_URL_EKS", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS",
	"AWS_EC2_METADATA_SERVICE_ENDPOINT", "AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE", "AWS_EC2_METADATA_DISABLED",
	"AWS_EC2_METADATA_V1_DISABLED", "AWS_USE_FIPS_ENDPOINT", "AWS_USE_DUALSTACK_ENDPOINT", "AWS_CA_BUNDLE",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
}

// IsolateEnv makes the AWS SDK see nothing of the developer's environment for
// the rest of the test: the variables above are unset, the shared config and
// credentials files point at missing files, fixed fake credentials and
// region us-west-2 are set, and the IMDS endpoint is a closed loopback port. Endpoints must
// then be given explicitly (AWS_ENDPOINT_URL_*), so no real AWS endpoint is
// ever reached by accident. Like t.Setenv it cannot be used in parallel tests.
func IsolateEnv(t testing.TB) {
	t.Helper()
	for _, k := range awsEnv {
		Unsetenv(t, k)
	}
	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "missing-config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "missing-credentials"))
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDAWSTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "awstest-secret")
	t.Setenv("AWS_REGION", "us-west-2")
	// Credentials come from the variables above, so the SDK never asks IMDS;
	// should anything still try, it reaches a closed loopback port.
	t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", "http://127.0.0.1:9")
}

// Unsetenv removes k from the environment until the test ends (t.Setenv
// alone can only set it to the empty string, which some SDK code treats as set).
func Unsetenv(t testing.TB, k string) {
	t.Helper()
	t.Setenv(k, "") // registers the restore
	if err := os.Unsetenv(k); err != nil {
		t.Fatalf("unset %s: %v", k, err)
	}
}
