package awstest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	for _, kv := range isolatedVars(t.TempDir()) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// IsolatedEnviron returns the environment of this process with the same
// isolation as IsolateEnv applied, for a child process; it does not change
// this process's environment, so parallel tests may use it.
func IsolatedEnviron(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(awsEnv, k) {
			out = append(out, kv)
		}
	}
	return append(out, isolatedVars(t.TempDir())...)
}

// isolatedVars are the variables that isolate the SDK: shared files that do
// not exist, fixed fake credentials, region us-west-2, and an IMDS endpoint
// on a closed loopback port (credentials come from the variables, so the
// SDK never asks IMDS; should anything still try, it reaches nothing).
func isolatedVars(dir string) []string {
	return []string{
		"AWS_CONFIG_FILE=" + filepath.Join(dir, "missing-config"),
		"AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(dir, "missing-credentials"),
		"AWS_ACCESS_KEY_ID=AKIDAWSTEST",
		"AWS_SECRET_ACCESS_KEY=awstest-secret",
		"AWS_REGION=us-west-2",
		"AWS_EC2_METADATA_SERVICE_ENDPOINT=http://127.0.0.1:9",
	}
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
