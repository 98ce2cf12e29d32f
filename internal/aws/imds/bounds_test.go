package imds

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

func TestTokenEndpointFailingIsRetriedOnce(t *testing.T) {
	s := newFakeIMDS(t)
	s.FailAlways(awstest.PathToken, fault(500))
	_, err := awstest.Within(t, func() (string, error) { return New(fastOptions(s.URL, 3)).MAC(t.Context()) })
	if err == nil || !strings.Contains(err.Error(), "imds meta-data/mac") || !strings.Contains(err.Error(), "API token") {
		t.Fatalf("error = %v, want one naming the lookup and the token", err)
	}
	// One loop of 3 attempts, not 3 lookup attempts each running 3 token
	// attempts (IMDSv1 fallback nested them: 60 × 60 with the defaults).
	if n := s.Calls(awstest.PathToken); n != 3 {
		t.Errorf("token requests = %d, want 3 (the attempt budget, not its square)", n)
	}
}

func TestSlowBodyIsBounded(t *testing.T) {
	tests := []struct {
		name string
		path string
		call func(c *Client) error
	}{
		{name: "metadata", path: "meta-data/mac", call: func(c *Client) error { _, err := c.MAC(t.Context()); return err }},
		{name: "user data", path: awstest.PathUserData, call: func(c *Client) error { _, err := c.UserData(t.Context()); return err }},
		{name: "identity document", path: awstest.PathIdentity, call: func(c *Client) error { _, err := c.IdentityDocument(t.Context()); return err }},
		{name: "session token", path: awstest.PathToken, call: func(c *Client) error { _, err := c.MAC(t.Context()); return err }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newFakeIMDS(t)
			s.Trickle(tc.path, time.Hour) // headers at once, then one byte an hour
			o := fastOptions(s.URL, 2)
			o.RequestTimeout = 100 * time.Millisecond
			_, err := awstest.Within(t, func() (struct{}, error) { return struct{}{}, tc.call(New(o)) })
			if err == nil {
				t.Fatal("lookup succeeded against a stalled body")
			}
			if !strings.Contains(err.Error(), "imds ") {
				t.Errorf("error %q does not name IMDS and the path", err)
			}
			// The body is read inside the attempt, so a stalled body is
			// retried like any other timeout, within the attempt budget (an
			// attempt whose deadline passes before the stub sees it, on a
			// loaded machine, is not counted there).
			if n := s.Calls(tc.path); n > 2 {
				t.Errorf("requests of %s = %d, want at most 2 (the attempt budget)", tc.path, n)
			}
		})
	}
}

func TestHangingIMDSIsBounded(t *testing.T) {
	s := newFakeIMDS(t)
	s.Hang("meta-data/mac")
	o := fastOptions(s.URL, 2)
	o.RequestTimeout = 100 * time.Millisecond
	_, err := awstest.Within(t, func() (string, error) { return New(o).MAC(t.Context()) })
	if err == nil || !strings.Contains(err.Error(), "imds meta-data/mac: gave up after 2 attempts") {
		t.Fatalf("error = %v, want the lookup to give up after its 2 attempts", err)
	}
}

func TestLookupDeadline(t *testing.T) {
	s := newFakeIMDS(t)
	s.FailAlways("meta-data/mac", fault(503))
	o := fastOptions(s.URL, 1_000_000) // only the deadline ends this lookup
	o.LookupTimeout = 200 * time.Millisecond
	_, err := awstest.Within(t, func() (string, error) { return New(o).MAC(t.Context()) })
	if err == nil || !strings.Contains(err.Error(), "imds meta-data/mac: no answer within 200ms") {
		t.Fatalf("error = %v, want the lookup's deadline named", err)
	}
	if errors.Is(err, ErrNotFound) {
		t.Errorf("a deadline is not ErrNotFound: %v", err)
	}
}

func TestBodySizeIsCapped(t *testing.T) {
	s := newFakeIMDS(t)
	s.Set(awstest.PathUserData, strings.Repeat("x", MaxBodySize+1))
	_, err := awstest.Within(t, func() ([]byte, error) { return New(fastOptions(s.URL, 3)).UserData(t.Context()) })
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "imds user-data") {
		t.Fatalf("error = %v, want ErrTooLarge naming user-data", err)
	}
	if n := s.Calls(awstest.PathUserData); n != 1 {
		t.Errorf("user-data requests = %d, want 1 (a size refusal is not retried)", n)
	}
	s.Set(awstest.PathUserData, strings.Repeat("x", MaxBodySize))
	if ud, err := New(fastOptions(s.URL, 3)).UserData(t.Context()); err != nil || len(ud) != MaxBodySize {
		t.Fatalf("user data of exactly the cap: %d bytes, %v", len(ud), err)
	}
}

// TestCallersBackoffIsUsed proves, whatever the machine's load, that the
// SDK sleeps the delays of the caller's policy: every backoff it asks for is
// seen and lies under the caller's ceilings (with the SDK's own 1 s fixed
// backoff, nothing would be seen at all).
func TestCallersBackoffIsUsed(t *testing.T) {
	s := newFakeIMDS(t)
	s.FailNext("meta-data/mac", fault(500), fault(500), fault(500))
	var seen []time.Duration
	o := Options{Endpoint: s.URL, MaxAttempts: 5, BaseDelay: 3 * time.Millisecond, MaxDelay: 5 * time.Millisecond}
	o.observeDelay = func(attempt int, d time.Duration) { seen = append(seen, d) }
	if _, err := New(o).MAC(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 3 {
		t.Fatalf("backoffs seen = %v, want 3 (one before each retry)", seen)
	}
	for i, ceiling := range []time.Duration{3 * time.Millisecond, 5 * time.Millisecond, 5 * time.Millisecond} {
		if seen[i] < 0 || seen[i] >= ceiling {
			t.Errorf("backoff %d = %s, want in [0, %s)", i+1, seen[i], ceiling)
		}
	}
}

// TestSDKHeaderTimeoutBoundsEachAttempt pins SDKResponseHeaderTimeout to
// what the client does: a service answering later than it fails every
// attempt (as an IMDS answering in 1–2 s fails init), one answering well
// within it succeeds. The doctor grades IMDS latency against it.
func TestSDKHeaderTimeoutBoundsEachAttempt(t *testing.T) {
	slow := newFakeIMDS(t)
	slow.SetDelay("meta-data/mac", 2*SDKResponseHeaderTimeout)
	_, err := awstest.Within(t, func() (string, error) { return New(fastOptions(slow.URL, 2)).MAC(t.Context()) })
	if err == nil || !strings.Contains(err.Error(), "gave up after 2 attempts") {
		t.Errorf("answers after %s: %v, want every attempt to time out", 2*SDKResponseHeaderTimeout, err)
	}
	fast := newFakeIMDS(t)
	fast.SetDelay("meta-data/mac", SDKResponseHeaderTimeout/5)
	if _, err := awstest.Within(t, func() (string, error) { return New(fastOptions(fast.URL, 2)).MAC(t.Context()) }); err != nil {
		t.Errorf("answers after %s: %v", SDKResponseHeaderTimeout/5, err)
	}
}
