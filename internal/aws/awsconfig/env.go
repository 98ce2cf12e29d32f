package awsconfig

import (
	"context"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
)

// envConfig is the part of the SDK's environment configuration the node
// agent reads. It is also the aws.Config.ConfigSources entry through which
// the service clients find per-service endpoints and the FIPS and dual-stack
// settings, by the same method names the SDK's own loader answers to.
type envConfig struct {
	region                                string
	accessKeyID, secretAccessKey, session string
	accountID                             string
	endpointURL                           string
	ignoreEndpoints, ignoreEndpointsFound bool
	fips                                  aws.FIPSEndpointState
	dualStack                             aws.DualStackEndpointState
	caBundle                              string
	maxAttempts                           int
	// unused names the settings of credential sources the agent does not
	// read, when the SDK's default chain would have used them.
	unused []string
}

// readEnv reads the variables, rejecting malformed ones as the SDK does.
func readEnv() (envConfig, error) {
	e := envConfig{
		region:          firstEnv("AWS_REGION", "AWS_DEFAULT_REGION"),
		accessKeyID:     firstEnv("AWS_ACCESS_KEY_ID", "AWS_ACCESS_KEY"),
		secretAccessKey: firstEnv("AWS_SECRET_ACCESS_KEY", "AWS_SECRET_KEY"),
		session:         os.Getenv("AWS_SESSION_TOKEN"),
		accountID:       os.Getenv("AWS_ACCOUNT_ID"),
		endpointURL:     os.Getenv("AWS_ENDPOINT_URL"),
		caBundle:        os.Getenv("AWS_CA_BUNDLE"),
	}
	var err error
	if e.ignoreEndpoints, e.ignoreEndpointsFound, err = envBool("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"); err != nil {
		return e, err
	}
	switch fips, found, err := envBool("AWS_USE_FIPS_ENDPOINT"); {
	case err != nil:
		return e, err
	case found && fips:
		e.fips = aws.FIPSEndpointStateEnabled
	case found:
		e.fips = aws.FIPSEndpointStateDisabled
	}
	switch dual, found, err := envBool("AWS_USE_DUALSTACK_ENDPOINT"); {
	case err != nil:
		return e, err
	case found && dual:
		e.dualStack = aws.DualStackEndpointStateEnabled
	case found:
		e.dualStack = aws.DualStackEndpointStateDisabled
	}
	if v := os.Getenv("AWS_MAX_ATTEMPTS"); v != "" {
		if e.maxAttempts, err = strconv.Atoi(v); err != nil {
			return e, fmt.Errorf("invalid value for environment variable, AWS_MAX_ATTEMPTS=%s, need int", v)
		}
	}
	if !e.hasKeys() {
		e.unused = unusedCredentialSources()
	}
	return e, nil
}

func (e envConfig) hasKeys() bool { return e.accessKeyID != "" && e.secretAccessKey != "" }

// baseEndpoint is AWS_ENDPOINT_URL, unless configured endpoints are ignored.
func (e envConfig) baseEndpoint() *string {
	if e.endpointURL == "" || e.ignoreEndpoints {
		return nil
	}
	return aws.String(e.endpointURL)
}

// GetServiceBaseEndpoint answers AWS_ENDPOINT_URL_<SERVICE> (the SDK id
// upper-cased, spaces as underscores), read when the client is built.
func (e envConfig) GetServiceBaseEndpoint(_ context.Context, sdkID string) (string, bool, error) {
	name := "AWS_ENDPOINT_URL_" + strings.ReplaceAll(strings.ToUpper(sdkID), " ", "_")
	v := os.Getenv(name)
	return v, v != "", nil
}

// GetIgnoreConfiguredEndpoints answers AWS_IGNORE_CONFIGURED_ENDPOINT_URLS.
func (e envConfig) GetIgnoreConfiguredEndpoints(context.Context) (bool, bool, error) {
	return e.ignoreEndpoints, e.ignoreEndpointsFound, nil
}

// GetUseFIPSEndpoint answers AWS_USE_FIPS_ENDPOINT.
func (e envConfig) GetUseFIPSEndpoint(context.Context) (aws.FIPSEndpointState, bool, error) {
	return e.fips, e.fips != aws.FIPSEndpointStateUnset, nil
}

// GetUseDualStackEndpoint answers AWS_USE_DUALSTACK_ENDPOINT.
func (e envConfig) GetUseDualStackEndpoint(context.Context) (aws.DualStackEndpointState, bool, error) {
	return e.dualStack, e.dualStack != aws.DualStackEndpointStateUnset, nil
}

// credentialSourceEnv are the variables of the SDK default chain's other
// credential sources.
var credentialSourceEnv = []string{
	"AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE",
	"AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
}

// unusedCredentialSources lists those variables that are set, and the shared
// config and credentials files that exist.
func unusedCredentialSources() []string {
	var unused []string
	for _, k := range credentialSourceEnv {
		if os.Getenv(k) != "" {
			unused = append(unused, k)
		}
	}
	home, _ := os.UserHomeDir()
	for env, name := range map[string]string{"AWS_SHARED_CREDENTIALS_FILE": "credentials", "AWS_CONFIG_FILE": "config"} {
		path := os.Getenv(env)
		if path == "" && home != "" {
			path = filepath.Join(home, ".aws", name)
		}
		if _, err := os.Stat(path); path != "" && err == nil {
			unused = append(unused, path)
		}
	}
	return unused
}

// firstEnv returns the first non-empty variable of names.
func firstEnv(names ...string) string {
	for _, k := range names {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	return ""
}

// envBool reads a true/false variable (any case); empty means unset.
func envBool(name string) (value, found bool, err error) {
	switch v := os.Getenv(name); {
	case v == "":
		return false, false, nil
	case strings.EqualFold(v, "true"):
		return true, true, nil
	case strings.EqualFold(v, "false"):
		return false, true, nil
	default:
		return false, false, fmt.Errorf("invalid value for environment variable, %s=%s, need true or false", name, v)
	}
}

// withCABundle makes the PEM bundle at path the only trusted roots, as the
// SDK does for AWS_CA_BUNDLE; an empty path leaves c as it is.
func withCABundle(c *awshttp.BuildableClient, path string) (*awshttp.BuildableClient, error) {
	if path == "" {
		return c, nil
	}
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("AWS_CA_BUNDLE: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("AWS_CA_BUNDLE=%s: no PEM certificate in the file", path)
	}
	return c.WithTransportOptions(func(tr *http.Transport) { tr.TLSClientConfig.RootCAs = pool }), nil
}
