// Package sdkdefault loads the AWS SDK configuration through the SDK's own
// loader and its whole default credential chain (environment, shared config
// and credentials files and profiles, web identity for IRSA, container
// credentials for EKS Pod Identity, SSO, the instance profile), with the
// retry policy and transport of package awsconfig. It is for cluster-side
// binaries that run in pods. The node agent must not import it: the chain
// links the STS, SSO and SSO-OIDC clients, whose endpoint tables are built at
// every start (cmd/nodeboot's dependency test fails if it is linked).
package sdkdefault

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/smithy-go/middleware"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
)

// Load returns config.LoadDefaultConfig's configuration plus o's region,
// retry policy (AWS_MAX_ATTEMPTS or max_attempts in the shared config
// winning), transport and logger.
func Load(ctx context.Context, o awsconfig.Options) (aws.Config, error) {
	return load(ctx, o)
}

// load is Load with extra loader options applied last (tests: an HTTP
// client that captures requests).
func load(ctx context.Context, o awsconfig.Options, extra ...func(*config.LoadOptions) error) (aws.Config, error) {
	// The plain request bodies are a loader option, not appended to the
	// loaded configuration: the loader builds the credential chain's own
	// clients (STS for web identity and assumed roles, SSO) from it.
	opts := []func(*config.LoadOptions) error{
		config.WithHTTPClient(o.HTTPClient()),
		config.WithAPIOptions([]func(*middleware.Stack) error{awsconfig.WithPlainRequestBodies}),
	}
	if o.Region != "" {
		opts = append(opts, config.WithRegion(o.Region))
	}
	if o.Logger != nil {
		opts = append(opts, config.WithLogger(awsconfig.SDKLogger(o.Logger)), config.WithClientLogMode(aws.LogRetries))
	}
	cfg, err := config.LoadDefaultConfig(ctx, append(opts, extra...)...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load AWS SDK config: %w", err)
	}
	policy := o.Policy()
	if cfg.RetryMaxAttempts > 0 {
		policy.MaxAttempts = cfg.RetryMaxAttempts
	}
	cfg.RetryMaxAttempts = policy.MaxAttempts
	cfg.Retryer = func() aws.Retryer { return awsconfig.NewRetryer(policy) }
	return cfg, nil
}
