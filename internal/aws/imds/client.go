// Package imds reads the EC2 instance metadata service (IMDS) through the AWS
// SDK's IMDSv2-aware client: typed lookups of the few values nodeboot needs,
// and Instance, which runs the independent lookups in parallel.
package imds

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	sdkimds "github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/smithy-go/middleware"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
)

// ErrNotFound is wrapped by lookups whose path the service answers with 404,
// e.g. user data on an instance launched without any.
var ErrNotFound = errors.New("not found in instance metadata")

// ErrIncompleteIdentity is wrapped when the identity document lacks the
// instance ID or the region.
var ErrIncompleteIdentity = errors.New("instance identity document is incomplete")

// ErrTooLarge is wrapped when an answer exceeds MaxBodySize.
var ErrTooLarge = errors.New("answer too large")

// Retry defaults, as in nodeadm: 60 attempts with backoff capped at 1 s, i.e.
// up to about a minute for an IMDS that is not answering yet early in boot.
const (
	DefaultMaxAttempts = 60
	DefaultBaseDelay   = 100 * time.Millisecond
	DefaultMaxDelay    = time.Second
)

// The AWS SDK's own limits on each IMDS request, which init's client keeps
// (resolveHTTPClient in feature/ec2/imds, unexported there): a metadata
// service slower than these fails every one of init's attempts. The
// doctor grades the service's latency against them.
const (
	SDKDialTimeout           = 250 * time.Millisecond
	SDKResponseHeaderTimeout = 500 * time.Millisecond
)

// Time and size bounds. Every request (connect, headers and body) ends
// within DefaultRequestTimeout and every lookup, retries included, within
// DefaultLookupTimeout; the SDK's own IMDS limits also apply to each request
// (connect 250 ms, headers 500 ms). No answer may exceed MaxBodySize: EC2
// user data is at most 16 KiB and nothing else IMDS serves comes near it.
const (
	DefaultRequestTimeout = 2 * time.Second
	DefaultLookupTimeout  = 2 * time.Minute
	MaxBodySize           = 1 << 20
)

// Options tunes New. The zero value is the production configuration.
type Options struct {
	// Endpoint overrides the service URL; empty means the SDK default, which
	// honours AWS_EC2_METADATA_SERVICE_ENDPOINT.
	Endpoint string
	// MaxAttempts per lookup, counting the first try; 0 means 60.
	MaxAttempts int
	// BaseDelay and MaxDelay shape the full-jitter backoff; 0 means 100 ms and 1 s.
	BaseDelay, MaxDelay time.Duration
	// RequestTimeout bounds one HTTP exchange, body included; 0 means 2 s.
	RequestTimeout time.Duration
	// LookupTimeout bounds one lookup, retries included; 0 means 2 minutes.
	LookupTimeout time.Duration
	// Retry404 also retries "not found" answers, for paths that may appear
	// a moment after boot (eventual consistency). Leave it off for user data,
	// whose absence is a normal answer.
	Retry404 bool

	// observeDelay, when set, sees every backoff the SDK asks the retryer
	// for (tests prove with it that the caller's policy is the one used).
	observeDelay func(attempt int, d time.Duration)
}

// Client reads instance metadata. It is safe for concurrent use.
type Client struct {
	sdk           *sdkimds.Client
	lookupTimeout time.Duration
}

// New returns a client. It does no I/O.
//
// Only IMDSv2 is spoken: every lookup first obtains a session token. The
// SDK's fallback to IMDSv1 is off because it nested retries: with a token
// endpoint answering 5xx, every attempt of a lookup ran the whole token
// retry loop again (60 × 60 attempts, about two hours). Now a token that
// cannot be had after its own attempts fails the lookup at once.
func New(o Options) *Client {
	policy := o.policy()
	var extra []retry.IsErrorRetryable
	if o.Retry404 {
		extra = append(extra, retry.RetryableHTTPStatusCode{Codes: map[int]struct{}{http.StatusNotFound: {}}})
	}
	var retryer aws.Retryer = awsconfig.NewRetryer(policy, extra...)
	if o.observeDelay != nil {
		retryer = observedRetryer{RetryerV2: retryer.(aws.RetryerV2), observe: o.observeDelay}
	}
	opts := sdkimds.Options{
		Endpoint:              o.Endpoint,
		Retryer:               retryer,
		HTTPClient:            newHTTPClient(o.Endpoint, positive(o.RequestTimeout, DefaultRequestTimeout)),
		DisableDefaultTimeout: true, // the 5 s per-operation default would cut the retries short
		// The SDK would otherwise replace our backoff with a fixed 1 s pause.
		DisableDefaultMaxBackoff: true,
		EnableFallback:           aws.FalseTernary,
		APIOptions:               []func(*middleware.Stack) error{readBodyInAttempt},
	}
	return &Client{sdk: sdkimds.New(opts), lookupTimeout: positive(o.LookupTimeout, DefaultLookupTimeout)}
}

func (o Options) policy() awsconfig.Policy {
	return awsconfig.Policy{
		MaxAttempts: positive(o.MaxAttempts, DefaultMaxAttempts),
		BaseDelay:   positive(o.BaseDelay, DefaultBaseDelay),
		MaxDelay:    positive(o.MaxDelay, DefaultMaxDelay),
	}
}

// positive returns v, or def when v is not positive.
func positive[T ~int | ~int64](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// newHTTPClient bounds every exchange, body included, by timeout, keeps the
// SDK's short IMDS connect and header timeouts (the SDK applies them to a
// BuildableClient) and never sends IMDS traffic through a proxy, whatever
// HTTP_PROXY says.
func newHTTPClient(endpoint string, timeout time.Duration) *awshttp.BuildableClient {
	var bypass []string
	if endpoint != "" {
		bypass = append(bypass, awsconfig.HostOf(endpoint))
	}
	return awshttp.NewBuildableClient().
		WithTimeout(timeout).
		WithTransportOptions(func(tr *http.Transport) { tr.Proxy = awsconfig.Proxy(bypass...) })
}

// errLookupDeadline is the cancellation cause of a lookup's own deadline.
var errLookupDeadline = errors.New("imds lookup deadline")

// lookup runs op under the lookup deadline and names path in its error.
func (c *Client) lookup(ctx context.Context, path string, op func(context.Context) error) error {
	ctx, cancel := context.WithTimeoutCause(ctx, c.lookupTimeout, errLookupDeadline)
	defer cancel()
	if err := op(ctx); err != nil {
		return c.lookupError(ctx, path, err)
	}
	return nil
}

// metadata returns the body of meta-data/<path>.
func (c *Client) metadata(ctx context.Context, path string) (string, error) {
	var body []byte
	err := c.lookup(ctx, "meta-data/"+path, func(ctx context.Context) error {
		out, err := c.sdk.GetMetadata(ctx, &sdkimds.GetMetadataInput{Path: path})
		if err == nil {
			body, err = readAll(out.Content)
		}
		return err
	})
	return string(body), err
}

// readAll returns a body that readBodyInAttempt has already read.
func readAll(rc io.ReadCloser) ([]byte, error) {
	defer rc.Close()
	return io.ReadAll(rc)
}

// lookupError names the path, maps 404 to ErrNotFound and says when the
// lookup's own deadline or attempt budget ended it.
func (c *Client) lookupError(ctx context.Context, path string, err error) error {
	var status interface{ HTTPStatusCode() int }
	if errors.As(err, &status) && status.HTTPStatusCode() == http.StatusNotFound {
		return fmt.Errorf("imds %s: %w", path, ErrNotFound)
	}
	if errors.Is(context.Cause(ctx), errLookupDeadline) {
		return fmt.Errorf("imds %s: no answer within %s: %w", path, c.lookupTimeout, err)
	}
	return awsconfig.CallError("imds "+path, err)
}

// splitLines returns the non-empty, trimmed lines of a list-valued answer.
func splitLines(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}
