package awsconfig

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go/logging"
	"github.com/aws/smithy-go/middleware"
)

// Defaults for the EC2 and EKS API clients.
//
// DefaultMaxAttempts applies when neither AWS_MAX_ATTEMPTS nor
// Options.MaxAttempts says otherwise. With the
// default delays the retries of one call sleep at most
// 0.5+1+2+4+8+16+20 = 51.5 s (26 s on average) — far below nodeadm's 30
// attempts (about 10 minutes of blocking), yet enough to ride out a burst of
// throttling when many nodes join at once.
const (
	DefaultMaxAttempts = 8
	DefaultBaseDelay   = 500 * time.Millisecond
	DefaultMaxDelay    = 20 * time.Second
	// DefaultDialTimeout bounds one TCP connect, so an unreachable endpoint
	// costs seconds per attempt rather than the SDK's 30 s.
	DefaultDialTimeout = 5 * time.Second
	// DefaultRequestTimeout bounds one attempt as a whole (connect, TLS,
	// headers and body), so an endpoint that accepts and never answers, or
	// stalls midway, costs one attempt this long and is then retried. With
	// the defaults above one call of a cluster-side client therefore ends
	// within 8 × 10 s + 51.5 s of backoff = 131.5 s.
	DefaultRequestTimeout = 10 * time.Second
)

// The node agent's API calls ride out an AWS endpoint that is unreachable
// for minutes (a NAT gateway or VPC endpoint still coming up, a network
// outage): nodeadm keeps trying for about ten minutes, and a node that
// gives up never joins. LoadNode therefore retries each call until
// DefaultCallBudget has passed, with at most DefaultNodeMaxAttempts
// attempts, unless AWS_MAX_ATTEMPTS or Options.MaxAttempts sets the
// attempts (then the budget still bounds the call).
const (
	DefaultCallBudget      = 5 * time.Minute
	DefaultNodeMaxAttempts = 40
)

// Options tunes LoadNode (and sdkdefault.Load). The zero value is the production configuration.
type Options struct {
	// Region of the API endpoints, normally the instance's region from IMDS.
	// Empty means AWS_REGION, else AWS_DEFAULT_REGION.
	Region string
	// MaxAttempts is the attempt budget of one API call when AWS_MAX_ATTEMPTS
	// is unset; 0 means DefaultMaxAttempts. AWS_MAX_ATTEMPTS wins because it is
	// the operator's explicit override.
	MaxAttempts int
	// BaseDelay and MaxDelay shape the full-jitter backoff; 0 means the
	// defaults.
	BaseDelay, MaxDelay time.Duration
	// DialTimeout bounds one TCP connect; 0 means DefaultDialTimeout.
	DialTimeout time.Duration
	// RequestTimeout bounds one attempt, body included; 0 means
	// DefaultRequestTimeout.
	RequestTimeout time.Duration
	// CallBudget bounds one API call of LoadNode's clients, retries
	// included; 0 means DefaultCallBudget.
	CallBudget time.Duration
	// Logger receives SDK retry messages at debug level; nil discards them.
	Logger *slog.Logger
}

// LoadNode returns the SDK configuration for the node agent's API clients,
// built without the SDK's config loader (whose default chain links the STS,
// SSO and SSO-OIDC clients, and with them endpoint tables initialised on
// every start, for credential sources a node does not use):
//
//   - region: Options.Region, else AWS_REGION, else AWS_DEFAULT_REGION;
//   - credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and
//     AWS_SESSION_TOKEN) when both are set, else the instance profile from
//     IMDS; settings of other sources (profiles, web identity, container
//     credentials) are reported to Logger and not used;
//   - endpoints: AWS_ENDPOINT_URL and AWS_ENDPOINT_URL_<SERVICE> unless
//     AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true; AWS_USE_FIPS_ENDPOINT and
//     AWS_USE_DUALSTACK_ENDPOINT; AWS_CA_BUNDLE as the only trusted roots;
//   - retries: the bounded policy of Options, AWS_MAX_ATTEMPTS winning;
//   - the per-request proxy function (see Proxy).
//
// It does no I/O but reading AWS_CA_BUNDLE; credentials are fetched on the
// first API call. Cluster-side binaries running in pods (IRSA, EKS Pod
// Identity) use awsconfig/sdkdefault instead.
func LoadNode(_ context.Context, o Options) (aws.Config, error) {
	env, err := readEnv()
	if err != nil {
		return aws.Config{}, fmt.Errorf("load AWS SDK config: %w", err)
	}
	httpClient, err := withCABundle(o.HTTPClient(), env.caBundle)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load AWS SDK config: %w", err)
	}
	cfg := aws.Config{
		Region:        cmp.Or(o.Region, env.region),
		HTTPClient:    httpClient,
		BaseEndpoint:  env.baseEndpoint(),
		ConfigSources: []any{env},
	}
	if o.Logger != nil {
		cfg.Logger = SDKLogger(o.Logger)
		cfg.ClientLogMode = aws.LogRetries
		for _, name := range env.unused {
			o.Logger.Warn("AWS credential setting not read by the node agent (it uses AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or the instance profile)", "setting", name)
		}
	}
	policy := o.Policy()
	switch {
	case env.maxAttempts > 0:
		policy.MaxAttempts = env.maxAttempts
	case o.MaxAttempts <= 0:
		policy.MaxAttempts = DefaultNodeMaxAttempts
	}
	cfg.RetryMaxAttempts = policy.MaxAttempts
	cfg.Retryer = func() aws.Retryer { return NewRetryer(policy) }
	cfg.APIOptions = append(cfg.APIOptions, callBudget(cmp.Or(o.CallBudget, DefaultCallBudget)), WithPlainRequestBodies)
	cfg.Credentials = credentialsFor(env, cfg)
	return cfg, nil
}

// callBudget bounds every API call, its retries included, by budget: the
// middleware runs once per call, before the retry loop.
func callBudget(budget time.Duration) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("nodebootCallBudget",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				ctx, cancel := context.WithTimeout(ctx, budget)
				defer cancel()
				return next.HandleInitialize(ctx, in)
			}), middleware.Before)
	}
}

// Policy is the retry policy of o, defaults filled in.
func (o Options) Policy() Policy {
	p := Policy{MaxAttempts: o.MaxAttempts, BaseDelay: o.BaseDelay, MaxDelay: o.MaxDelay}
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultBaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultMaxDelay
	}
	return p
}

// HTTPClient is the SDK's buildable client with o's connect timeout, a
// deadline on every exchange (body included) and the environment-reading,
// metadata-bypassing proxy function.
func (o Options) HTTPClient() *awshttp.BuildableClient {
	dial := cmp.Or(o.DialTimeout, DefaultDialTimeout)
	request := cmp.Or(o.RequestTimeout, DefaultRequestTimeout)
	return awshttp.NewBuildableClient().
		WithTimeout(request).
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = dial }).
		WithTransportOptions(func(tr *http.Transport) { tr.Proxy = Proxy() })
}

// SDKLogger forwards SDK log lines to log at debug level (warnings at warn).
func SDKLogger(log *slog.Logger) logging.Logger {
	return logging.LoggerFunc(func(c logging.Classification, format string, v ...interface{}) {
		if c == logging.Warn {
			log.Warn(fmt.Sprintf(format, v...), "source", "aws-sdk")
			return
		}
		log.Debug(fmt.Sprintf(format, v...), "source", "aws-sdk")
	})
}
