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

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
)

// ErrNotFound is wrapped by lookups whose path the service answers with 404,
// e.g. user data on an instance launched without any.
var ErrNotFound = errors.New("not found in instance metadata")

// ErrIncompleteIdentity is wrapped when the identity document lacks the
// instance ID or the region.
var ErrIncompleteIdentity = errors.New("instance identity document is incomplete")

// Retry defaults, as in nodeadm: 60 attempts with backoff capped at 1 s, i.e.
// up to about a minute for an IMDS that is not answering yet early in boot.
const (
	DefaultMaxAttempts = 60
	DefaultBaseDelay   = 100 * time.Millisecond
	DefaultMaxDelay    = time.Second
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
	// Retry404 also retries "not found" answers, for paths that may appear
	// a moment after boot (eventual consistency). Leave it off for user data,
	// whose absence is a normal answer.
	Retry404 bool
	// RequireToken disables the SDK's fallback to IMDSv1 when no session
	// token can be obtained.
	RequireToken bool
}

// Client reads instance metadata. It is safe for concurrent use.
type Client struct {
	sdk *sdkimds.Client
}

// New returns a client. It does no I/O.
func New(o Options) *Client {
	policy := o.policy()
	var extra []retry.IsErrorRetryable
	if o.Retry404 {
		extra = append(extra, retry.RetryableHTTPStatusCode{Codes: map[int]struct{}{http.StatusNotFound: {}}})
	}
	opts := sdkimds.Options{
		Endpoint:              o.Endpoint,
		Retryer:               awsconfig.NewRetryer(policy, extra...),
		HTTPClient:            newHTTPClient(o.Endpoint),
		DisableDefaultTimeout: true, // the 5 s per-operation default would cut the retries short
		// The SDK would otherwise replace our backoff with a fixed 1 s pause.
		DisableDefaultMaxBackoff: true,
	}
	if o.RequireToken {
		opts.EnableFallback = aws.FalseTernary
	}
	return &Client{sdk: sdkimds.New(opts)}
}

func (o Options) policy() awsconfig.Policy {
	p := awsconfig.Policy{MaxAttempts: o.MaxAttempts, BaseDelay: o.BaseDelay, MaxDelay: o.MaxDelay}
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

// newHTTPClient keeps the SDK's short IMDS connect and header timeouts (the
// SDK applies them to a BuildableClient) and never sends IMDS traffic through
// a proxy, whatever HTTP_PROXY says.
func newHTTPClient(endpoint string) *awshttp.BuildableClient {
	var bypass []string
	if endpoint != "" {
		bypass = append(bypass, awsconfig.HostOf(endpoint))
	}
	return awshttp.NewBuildableClient().
		WithTransportOptions(func(tr *http.Transport) { tr.Proxy = awsconfig.Proxy(bypass...) })
}

// metadata returns the body of meta-data/<path>.
func (c *Client) metadata(ctx context.Context, path string) (string, error) {
	out, err := c.sdk.GetMetadata(ctx, &sdkimds.GetMetadataInput{Path: path})
	if err != nil {
		return "", lookupError("meta-data/"+path, err)
	}
	body, err := readAll(out.Content)
	if err != nil {
		return "", fmt.Errorf("imds meta-data/%s: read body: %w", path, err)
	}
	return string(body), nil
}

func readAll(rc io.ReadCloser) ([]byte, error) {
	defer rc.Close()
	return io.ReadAll(rc)
}

// lookupError names the path and maps 404 to ErrNotFound.
func lookupError(path string, err error) error {
	var status interface{ HTTPStatusCode() int }
	if errors.As(err, &status) && status.HTTPStatusCode() == http.StatusNotFound {
		return fmt.Errorf("imds %s: %w", path, ErrNotFound)
	}
	if n := awsconfig.Attempts(err); n > 0 {
		return fmt.Errorf("imds %s: gave up after %d attempts: %w", path, n, err)
	}
	return fmt.Errorf("imds %s: %w", path, err)
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
