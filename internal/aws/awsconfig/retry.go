package awsconfig

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
)

// Policy bounds how often and how patiently a call is retried.
type Policy struct {
	// MaxAttempts counts the first try; 1 means no retry.
	MaxAttempts int
	// BaseDelay is the backoff ceiling before the first retry; the ceiling
	// doubles with every further retry up to MaxDelay.
	BaseDelay time.Duration
	// MaxDelay caps the backoff ceiling.
	MaxDelay time.Duration
}

// FullJitter is exponential backoff with full jitter: before retry n (n ≥ 1)
// it waits a uniformly random time in [0, min(MaxDelay, BaseDelay·2^(n-1))).
// Full jitter spreads the retries of many nodes that were throttled together,
// instead of making them retry in lock step.
type FullJitter struct {
	BaseDelay time.Duration
	MaxDelay  time.Duration
}

// Ceiling returns the upper bound of the delay before retry attempt n.
func (j FullJitter) Ceiling(n int) time.Duration {
	if n < 1 {
		n = 1
	}
	ceiling := j.BaseDelay
	for i := 1; i < n && ceiling < j.MaxDelay; i++ {
		ceiling *= 2
	}
	if j.MaxDelay > 0 && ceiling > j.MaxDelay {
		ceiling = j.MaxDelay
	}
	return ceiling
}

// Delay returns a random delay for retry attempt n.
func (j FullJitter) Delay(n int) time.Duration {
	ceiling := j.Ceiling(n)
	if ceiling <= 0 {
		return 0
	}
	return rand.N(ceiling)
}

// BackoffDelay implements retry.BackoffDelayer; the SDK passes the number of
// attempts made so far, which is the number of the coming retry.
func (j FullJitter) BackoffDelay(attempt int, _ error) (time.Duration, error) {
	return j.Delay(attempt), nil
}

// retryableStatus are the HTTP statuses retried in addition to the SDK's
// throttling and transient error codes: 429 for throttling answered without a
// known error code, and the 5xx family.
var retryableStatus = map[int]struct{}{
	http.StatusTooManyRequests:     {},
	http.StatusInternalServerError: {},
	http.StatusBadGateway:          {},
	http.StatusServiceUnavailable:  {},
	http.StatusGatewayTimeout:      {},
}

// NewRetryer returns the SDK standard retryer bounded by p, with full-jitter
// backoff, 429 and 5xx retried, and the client-side retry quota disabled (the
// bound on attempts already limits the work; a quota would make a long boot
// fail early for no benefit). extra adds more retryable-error rules.
func NewRetryer(p Policy, extra ...retry.IsErrorRetryable) aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = p.MaxAttempts
		o.MaxBackoff = p.MaxDelay
		o.Backoff = FullJitter{BaseDelay: p.BaseDelay, MaxDelay: p.MaxDelay}
		o.RateLimiter = ratelimit.None
		o.Retryables = append(o.Retryables, retry.RetryableHTTPStatusCode{Codes: retryableStatus})
		o.Retryables = append(o.Retryables, extra...)
	})
}

// CallError wraps err, the failure of the SDK call described by what (e.g.
// `eks DescribeCluster "prod"`), saying how many attempts were made when the
// retries ran out and whether the last one timed out: an endpoint that does
// not answer is told apart from one that answers with an error.
func CallError(what string, err error) error {
	n := Attempts(err)
	timedOut := TimedOut(err)
	switch {
	case n > 0 && timedOut:
		return fmt.Errorf("%s: gave up after %d attempts (the last timed out): %w", what, n, err)
	case n > 0:
		return fmt.Errorf("%s: gave up after %d attempts: %w", what, n, err)
	case timedOut:
		return fmt.Errorf("%s: timed out: %w", what, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// TimedOut reports whether err is, or wraps, a deadline or network timeout.
func TimedOut(err error) bool {
	var timeout interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &timeout) && timeout.Timeout())
}

// Attempts returns how many attempts an SDK call made before it gave up, or 0
// when err does not say (it was not retried to exhaustion).
func Attempts(err error) int {
	var maxErr *retry.MaxAttemptsError
	if errors.As(err, &maxErr) {
		return maxErr.Attempt
	}
	return 0
}

// Transient reports whether a call that failed with err may succeed when
// made again later: the SDK gave up retrying an error it retries
// (throttling, 5xx, a broken connection), the call ran out of time or was
// cancelled, or err is one the retry policy would retry. Other errors
// (access denied, a malformed request, an unknown resource) need a change
// before a new call can succeed.
func Transient(err error) bool {
	switch {
	case err == nil:
		return false
	case Attempts(err) > 0, errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return true
	}
	return NewRetryer(Policy{MaxAttempts: 1}).IsErrorRetryable(err)
}
