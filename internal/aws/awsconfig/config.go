package awsconfig

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/smithy-go/logging"
)

// Defaults for the EC2 and EKS API clients.
//
// DefaultMaxAttempts applies when neither AWS_MAX_ATTEMPTS (nor max_attempts
// in the shared config) nor Options.MaxAttempts says otherwise. With the
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
	// the defaults above one call therefore ends within
	// 8 × 10 s + 51.5 s of backoff = 131.5 s.
	DefaultRequestTimeout = 10 * time.Second
)

// Options tunes Load. The zero value is the production configuration.
type Options struct {
	// Region of the API endpoints, normally the instance's region from IMDS.
	// Empty leaves the SDK's own resolution (AWS_REGION, shared config).
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
	// Logger receives SDK retry messages at debug level; nil discards them.
	Logger *slog.Logger
}

// Load returns the SDK configuration for nodeboot's API clients:
// config.LoadDefaultConfig (credential chain, shared config, endpoint
// overrides from AWS_ENDPOINT_URL and AWS_ENDPOINT_URL_<SERVICE>) plus the
// region, the bounded retry policy and the per-request proxy function.
func Load(ctx context.Context, o Options) (aws.Config, error) {
	policy := o.policy()
	opts := []func(*config.LoadOptions) error{
		config.WithHTTPClient(newHTTPClient(o.dialTimeout(), o.requestTimeout())),
	}
	if o.Region != "" {
		opts = append(opts, config.WithRegion(o.Region))
	}
	if o.Logger != nil {
		opts = append(opts,
			config.WithLogger(slogAdapter(o.Logger)),
			config.WithClientLogMode(aws.LogRetries))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load AWS SDK config: %w", err)
	}
	if cfg.RetryMaxAttempts > 0 { // AWS_MAX_ATTEMPTS or shared config max_attempts
		policy.MaxAttempts = cfg.RetryMaxAttempts
	}
	cfg.RetryMaxAttempts = policy.MaxAttempts
	cfg.Retryer = func() aws.Retryer { return NewRetryer(policy) }
	return cfg, nil
}

func (o Options) policy() Policy {
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

func (o Options) dialTimeout() time.Duration {
	if o.DialTimeout > 0 {
		return o.DialTimeout
	}
	return DefaultDialTimeout
}

func (o Options) requestTimeout() time.Duration {
	if o.RequestTimeout > 0 {
		return o.RequestTimeout
	}
	return DefaultRequestTimeout
}

// newHTTPClient is the SDK's buildable client with a short connect timeout,
// a deadline on every exchange (body included) and the environment-reading,
// metadata-bypassing proxy function.
func newHTTPClient(dial, request time.Duration) *awshttp.BuildableClient {
	return awshttp.NewBuildableClient().
		WithTimeout(request).
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = dial }).
		WithTransportOptions(func(tr *http.Transport) { tr.Proxy = Proxy() })
}

// slogAdapter forwards SDK log lines to log at debug level (warnings at warn).
func slogAdapter(log *slog.Logger) logging.Logger {
	return logging.LoggerFunc(func(c logging.Classification, format string, v ...interface{}) {
		if c == logging.Warn {
			log.Warn(fmt.Sprintf(format, v...), "source", "aws-sdk")
			return
		}
		log.Debug(fmt.Sprintf(format, v...), "source", "aws-sdk")
	})
}
