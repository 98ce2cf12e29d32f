package awsconfig

import (
	"bytes"
	"context"
	"encoding/pem"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"

	"github.com/nodeboot/nodeboot/internal/testing/aemmtest"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// resolved is what a service client made of a configuration.
type resolved struct {
	ec2Endpoint, eksEndpoint string
	region                   string
	fips                     aws.FIPSEndpointState
	dualStack                aws.DualStackEndpointState
	maxAttempts              int
}

func resolve(cfg aws.Config) resolved {
	e, k := ec2.NewFromConfig(cfg).Options(), eks.NewFromConfig(cfg).Options()
	return resolved{
		ec2Endpoint: aws.ToString(e.BaseEndpoint), eksEndpoint: aws.ToString(k.BaseEndpoint),
		region: e.Region, fips: e.EndpointOptions.UseFIPSEndpoint, dualStack: e.EndpointOptions.UseDualStackEndpoint,
		maxAttempts: cfg.RetryMaxAttempts,
	}
}

// TestLoadNodeAgreesWithTheSDKLoader reads every environment setting LoadNode
// supports both ways: LoadNode and the SDK's config.LoadDefaultConfig must
// give the EC2 and EKS clients the same endpoints, region, FIPS and
// dual-stack settings, and reject the same malformed values.
func TestLoadNodeAgreesWithTheSDKLoader(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
	}{
		{name: "nothing set"},
		{name: "global endpoint", env: map[string]string{"AWS_ENDPOINT_URL": "http://global.example"}},
		{name: "ec2 endpoint", env: map[string]string{"AWS_ENDPOINT_URL_EC2": "http://ec2.example"}},
		{name: "eks endpoint", env: map[string]string{"AWS_ENDPOINT_URL_EKS": "http://eks.example"}},
		{name: "service endpoint wins over global", env: map[string]string{
			"AWS_ENDPOINT_URL": "http://global.example", "AWS_ENDPOINT_URL_EC2": "http://ec2.example"}},
		{name: "configured endpoints ignored", env: map[string]string{"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true",
			"AWS_ENDPOINT_URL": "http://global.example", "AWS_ENDPOINT_URL_EC2": "http://ec2.example"}},
		{name: "configured endpoints not ignored", env: map[string]string{"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "FALSE",
			"AWS_ENDPOINT_URL": "http://global.example"}},
		{name: "ignore flag malformed", env: map[string]string{"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "yes"}},
		{name: "fips on", env: map[string]string{"AWS_USE_FIPS_ENDPOINT": "true"}},
		{name: "fips off", env: map[string]string{"AWS_USE_FIPS_ENDPOINT": "False"}},
		{name: "fips malformed", env: map[string]string{"AWS_USE_FIPS_ENDPOINT": "1"}},
		{name: "dual-stack on", env: map[string]string{"AWS_USE_DUALSTACK_ENDPOINT": "TRUE"}},
		{name: "dual-stack malformed", env: map[string]string{"AWS_USE_DUALSTACK_ENDPOINT": "on"}},
		{name: "max attempts", env: map[string]string{"AWS_MAX_ATTEMPTS": "5"}},
		{name: "max attempts malformed", env: map[string]string{"AWS_MAX_ATTEMPTS": "many"}},
		{name: "default region only", env: map[string]string{"AWS_REGION": "", "AWS_DEFAULT_REGION": "eu-central-1"}},
		{name: "region wins over default region", env: map[string]string{"AWS_REGION": "ap-south-1", "AWS_DEFAULT_REGION": "eu-central-1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			awstest.IsolateEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			lean, leanErr := LoadNode(t.Context(), Options{})
			sdk, sdkErr := config.LoadDefaultConfig(t.Context())
			if (leanErr == nil) != (sdkErr == nil) {
				t.Fatalf("LoadNode error %v, SDK loader error %v", leanErr, sdkErr)
			}
			if leanErr != nil {
				return
			}
			got, want := resolve(lean), resolve(sdk)
			if want.maxAttempts == 0 { // the SDK leaves it unset; LoadNode fills in the default
				want.maxAttempts = DefaultNodeMaxAttempts
			}
			if got != want {
				t.Errorf("LoadNode resolves\n %+v\nthe SDK loader\n %+v", got, want)
			}
		})
	}
}

func TestLoadNodeCredentialsFromTheEnvironment(t *testing.T) {
	awstest.IsolateEnv(t)
	t.Setenv("AWS_SESSION_TOKEN", "session")
	cfg, err := LoadNode(t.Context(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	creds, err := cfg.Credentials.Retrieve(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if creds.AccessKeyID != "AKIDAWSTEST" || creds.SecretAccessKey != "awstest-secret" || creds.SessionToken != "session" {
		t.Errorf("credentials = %+v, want the environment's", creds)
	}
}

// TestLoadNodeCredentialsFromTheInstanceProfile asks the real metadata mock
// for the instance profile's role credentials when the environment has none,
// and reports the credential settings it does not read.
func TestLoadNodeCredentialsFromTheInstanceProfile(t *testing.T) {
	awstest.IsolateEnv(t)
	awstest.Unsetenv(t, "AWS_ACCESS_KEY_ID")
	awstest.Unsetenv(t, "AWS_SECRET_ACCESS_KEY")
	t.Setenv(MetadataEndpointEnv, aemmtest.Start(t, aemmtest.Config{}))
	t.Setenv("AWS_PROFILE", "from-the-shared-config")
	var logs bytes.Buffer
	cfg, err := LoadNode(t.Context(), Options{Region: "us-west-2", Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "setting=AWS_PROFILE") {
		t.Errorf("AWS_PROFILE not reported as unread:\n%s", logs.String())
	}
	creds, err := cfg.Credentials.Retrieve(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// AEMM's instance profile credentials.
	if creds.AccessKeyID != "12345678901" || creds.SecretAccessKey != "v/12345678901" || creds.SessionToken == "" {
		t.Errorf("credentials = %+v, want the instance profile's", creds)
	}
}

func TestUnusedCredentialSources(t *testing.T) {
	awstest.IsolateEnv(t)
	dir := t.TempDir()
	shared := filepath.Join(dir, "credentials")
	if err := os.WriteFile(shared, []byte("[default]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", shared)
	t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", "/var/run/token")
	got := strings.Join(unusedCredentialSources(), " ")
	if got != "AWS_WEB_IDENTITY_TOKEN_FILE "+shared {
		t.Errorf("unused = %q", got)
	}
}

func TestLoadNodeCABundle(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	bundle := filepath.Join(dir, "bundle.pem")
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(bundle, cert, 0o644); err != nil {
		t.Fatal(err)
	}
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, bundle string
		loadErr      bool
		callErr      bool
	}{
		{name: "no bundle: the test server's CA is unknown", callErr: true},
		{name: "bundle trusted", bundle: bundle},
		{name: "bundle missing", bundle: filepath.Join(dir, "missing.pem"), loadErr: true},
		{name: "bundle without PEM", bundle: notPEM, loadErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			awstest.IsolateEnv(t)
			if tc.bundle != "" {
				t.Setenv("AWS_CA_BUNDLE", tc.bundle)
			}
			cfg, err := LoadNode(t.Context(), Options{})
			if (err != nil) != tc.loadErr {
				t.Fatalf("LoadNode error = %v, want error %v", err, tc.loadErr)
			}
			if err != nil {
				return
			}
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL, nil)
			resp, err := cfg.HTTPClient.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			if (err != nil) != tc.callErr {
				t.Errorf("call error = %v, want error %v", err, tc.callErr)
			}
		})
	}
}
