package imds

import (
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

const (
	testMAC   = "0e:49:61:0f:c3:11"
	macPrefix = "meta-data/network/interfaces/macs/" + testMAC + "/"
)

// newFakeIMDS serves a typical IPv4+IPv6 instance.
func newFakeIMDS(t *testing.T) *awstest.IMDS {
	t.Helper()
	awstest.IsolateEnv(t)
	s := awstest.NewIMDS(t)
	s.SetIdentity("i-0123456789abcdef0", "us-west-2", "m5.large", "us-west-2a")
	s.Set("meta-data/mac", testMAC)
	s.Set("meta-data/local-ipv4", "10.0.0.5")
	s.Set("meta-data/instance-life-cycle", "spot")
	s.Set(macPrefix+"ipv6s", "2001:db8::5\n2001:db8::6\n")
	s.Set(macPrefix+"vpc-ipv4-cidr-blocks", "10.0.0.0/16\n100.64.0.0/16")
	s.Set(awstest.PathUserData, "#!/bin/sh\necho hi\n")
	return s
}

// fastOptions keeps retries quick for tests.
func fastOptions(endpoint string, attempts int) Options {
	return Options{Endpoint: endpoint, MaxAttempts: attempts, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}
}

func TestLookups(t *testing.T) {
	s := newFakeIMDS(t)
	c := New(fastOptions(s.URL, 3))
	ctx := t.Context()

	ud, err := c.UserData(ctx)
	if err != nil || string(ud) != "#!/bin/sh\necho hi\n" {
		t.Errorf("UserData = %q, %v", ud, err)
	}
	id, err := c.IdentityDocument(ctx)
	if want := (InstanceIdentity{ID: "i-0123456789abcdef0", Region: "us-west-2", Type: "m5.large", AZ: "us-west-2a"}); err != nil || id != want {
		t.Errorf("IdentityDocument = %+v, %v; want %+v", id, err, want)
	}
	mac, err := c.MAC(ctx)
	if err != nil || mac != testMAC {
		t.Errorf("MAC = %q, %v", mac, err)
	}
	ip, err := c.LocalIPv4(ctx)
	if err != nil || ip != "10.0.0.5" {
		t.Errorf("LocalIPv4 = %q, %v", ip, err)
	}
	lifecycle, err := c.InstanceLifecycle(ctx)
	if err != nil || lifecycle != "spot" {
		t.Errorf("InstanceLifecycle = %q, %v", lifecycle, err)
	}
	ipv6s, err := c.IPv6s(ctx, testMAC)
	if want := []string{"2001:db8::5", "2001:db8::6"}; err != nil || !reflect.DeepEqual(ipv6s, want) {
		t.Errorf("IPv6s = %q, %v; want %q", ipv6s, err, want)
	}
	cidrs, err := c.VPCIPv4CIDRs(ctx, testMAC)
	if want := []string{"10.0.0.0/16", "100.64.0.0/16"}; err != nil || !reflect.DeepEqual(cidrs, want) {
		t.Errorf("VPCIPv4CIDRs = %q, %v; want %q", cidrs, err, want)
	}
	if n := s.Calls(awstest.PathToken); n != 1 {
		t.Errorf("token requests = %d, want 1 (the session token is reused)", n)
	}
}

func TestLookupErrors(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(s *awstest.IMDS)
		opts    func(url string) Options // nil: fastOptions(url, 3)
		call    func(c *Client) error
		wantIs  error
		wantErr string
	}{
		{
			name:   "no user data is ErrNotFound",
			setup:  func(s *awstest.IMDS) {},
			call:   func(c *Client) error { _, err := c.UserData(t.Context()); return err },
			wantIs: ErrNotFound,
		},
		{
			name:    "no ipv6 on interface is ErrNotFound naming the path",
			setup:   func(s *awstest.IMDS) {},
			call:    func(c *Client) error { _, err := c.IPv6s(t.Context(), testMAC); return err },
			wantIs:  ErrNotFound,
			wantErr: "imds meta-data/network/interfaces/macs/" + testMAC + "/ipv6s: not found",
		},
		{
			name:   "identity without region",
			setup:  func(s *awstest.IMDS) { s.SetIdentity("i-1", "", "m5.large", "") },
			call:   func(c *Client) error { _, err := c.IdentityDocument(t.Context()); return err },
			wantIs: ErrIncompleteIdentity,
		},
		{
			name:    "5xx exhausts the attempt budget",
			setup:   func(s *awstest.IMDS) { s.FailNext("meta-data/mac", fault(500), fault(500), fault(503), fault(500)) },
			call:    func(c *Client) error { _, err := c.MAC(t.Context()); return err },
			wantErr: "imds meta-data/mac: gave up after 3 attempts",
		},
		{
			name:    "token refused: no IMDSv1 fallback",
			setup:   func(s *awstest.IMDS) { s.FailNext(awstest.PathToken, fault(http.StatusForbidden)) },
			call:    func(c *Client) error { _, err := c.MAC(t.Context()); return err },
			wantErr: "failed to get API token",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			awstest.IsolateEnv(t)
			s := awstest.NewIMDS(t)
			s.Set("meta-data/mac", testMAC)
			tc.setup(s)
			opts := fastOptions(s.URL, 3)
			if tc.opts != nil {
				opts = tc.opts(s.URL)
			}
			err := tc.call(New(opts))
			if err == nil {
				t.Fatal("lookup succeeded, want an error")
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("error = %v, want errors.Is %v", err, tc.wantIs)
			}
			if tc.wantErr != "" && !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error = %v, want it to contain %q", err, tc.wantErr)
			}
		})
	}
}

func fault(status int) awstest.Fault {
	return awstest.Fault{Status: status, Message: http.StatusText(status)}
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name      string
		opts      func(url string) Options
		faults    []awstest.Fault
		wantErr   bool
		wantCalls int
	}{
		{name: "5xx then success", opts: func(u string) Options { return fastOptions(u, 5) }, faults: []awstest.Fault{fault(500), fault(503)}, wantCalls: 3},
		{name: "404 is an answer, not retried", opts: func(u string) Options { return fastOptions(u, 5) }, faults: []awstest.Fault{fault(404)}, wantErr: true, wantCalls: 1},
		{name: "Retry404 rides out eventual consistency", opts: func(u string) Options { o := fastOptions(u, 5); o.Retry404 = true; return o }, faults: []awstest.Fault{fault(404), fault(404)}, wantCalls: 3},
		{name: "caller's smaller budget", opts: func(u string) Options { return fastOptions(u, 2) }, faults: []awstest.Fault{fault(500), fault(500), fault(500)}, wantErr: true, wantCalls: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newFakeIMDS(t)
			s.FailNext("meta-data/mac", tc.faults...)
			mac, err := New(tc.opts(s.URL)).MAC(t.Context())
			if (err != nil) != tc.wantErr {
				t.Fatalf("MAC = %q, %v; want error %v", mac, err, tc.wantErr)
			}
			if !tc.wantErr && mac != testMAC {
				t.Errorf("MAC = %q", mac)
			}
			if n := s.Calls("meta-data/mac"); n != tc.wantCalls {
				t.Errorf("calls = %d, want %d", n, tc.wantCalls)
			}
		})
	}
}

func TestDefaultsMatchNodeadm(t *testing.T) {
	p := Options{}.policy()
	if p.MaxAttempts != 60 || p.MaxDelay != time.Second {
		t.Errorf("default policy = %+v, want 60 attempts, 1s max backoff", p)
	}
	if c := New(Options{}); c.lookupTimeout != DefaultLookupTimeout {
		t.Errorf("default lookup deadline = %s, want %s", c.lookupTimeout, DefaultLookupTimeout)
	}
	p = Options{MaxAttempts: 4, MaxDelay: 50 * time.Millisecond}.policy()
	if p.MaxAttempts != 4 || p.MaxDelay != 50*time.Millisecond || p.BaseDelay != DefaultBaseDelay {
		t.Errorf("caller policy = %+v", p)
	}
}

func TestInstance(t *testing.T) {
	base := hub.InstanceStatus{ID: "i-0123456789abcdef0", Region: "us-west-2", Type: "m5.large", AvailabilityZone: "us-west-2a", MAC: testMAC}
	tests := []struct {
		name      string
		want      Want
		expect    func(hub.InstanceStatus) hub.InstanceStatus
		wantPaths map[string]int
	}{
		{
			name:   "ipv4 only",
			want:   Want{},
			expect: func(s hub.InstanceStatus) hub.InstanceStatus { s.NodeIP = "10.0.0.5"; return s },
			wantPaths: map[string]int{
				"meta-data/local-ipv4": 1, macPrefix + "ipv6s": 0, macPrefix + "vpc-ipv4-cidr-blocks": 0,
			},
		},
		{
			name:   "ipv6 node ip skips local-ipv4",
			want:   Want{IPv6: true},
			expect: func(s hub.InstanceStatus) hub.InstanceStatus { s.NodeIP = "2001:db8::5"; return s },
			wantPaths: map[string]int{
				"meta-data/local-ipv4": 0, macPrefix + "ipv6s": 1, macPrefix + "vpc-ipv4-cidr-blocks": 0,
			},
		},
		{
			name: "vpc cidrs for the DNS fallback",
			want: Want{VPCCIDRs: true},
			expect: func(s hub.InstanceStatus) hub.InstanceStatus {
				s.NodeIP = "10.0.0.5"
				s.VPCIPv4CIDRs = []string{"10.0.0.0/16", "100.64.0.0/16"}
				return s
			},
			wantPaths: map[string]int{
				"meta-data/local-ipv4": 1, macPrefix + "ipv6s": 0, macPrefix + "vpc-ipv4-cidr-blocks": 1,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newFakeIMDS(t)
			got, err := New(fastOptions(s.URL, 3)).Instance(t.Context(), tc.want)
			if err != nil {
				t.Fatal(err)
			}
			if want := tc.expect(base); !reflect.DeepEqual(got, want) {
				t.Errorf("Instance = %+v\nwant       %+v", got, want)
			}
			for path, n := range tc.wantPaths {
				if got := s.Calls(path); got != n {
					t.Errorf("calls of %s = %d, want %d", path, got, n)
				}
			}
			if n := s.Calls(awstest.PathUserData); n != 0 {
				t.Errorf("Instance read user data %d times", n)
			}
		})
	}
}

func TestInstanceRunsLookupsInParallel(t *testing.T) {
	const delay = 200 * time.Millisecond // below the SDK's 500 ms IMDS header timeout
	s := newFakeIMDS(t)
	for _, p := range []string{awstest.PathIdentity, "meta-data/mac", "meta-data/local-ipv4", macPrefix + "ipv6s", macPrefix + "vpc-ipv4-cidr-blocks"} {
		s.SetDelay(p, delay)
	}
	c := New(fastOptions(s.URL, 3))
	if _, err := c.UserData(t.Context()); err != nil { // fetch the session token first
		t.Fatal(err)
	}
	s.ResetInFlight()

	st, err := c.Instance(t.Context(), Want{IPv6: true, VPCCIDRs: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.NodeIP != "2001:db8::5" || len(st.VPCIPv4CIDRs) != 2 {
		t.Errorf("Instance = %+v", st)
	}
	// Every lookup sleeps delay on the server. Round 1 runs identity + mac
	// together, round 2 ipv6s + vpc cidrs together. The in-flight high-water
	// mark proves it whatever the machine's load; wall time would not.
	if got := s.MaxInFlight(); got != 2 {
		t.Errorf("max concurrent metadata requests = %d, want 2", got)
	}

	s.ResetInFlight()
	if _, err := c.Instance(t.Context(), Want{}); err != nil {
		t.Fatal(err)
	}
	if got := s.MaxInFlight(); got != 3 {
		t.Errorf("IPv4 round: max concurrent requests = %d, want 3 (identity, mac, local-ipv4)", got)
	}
}

func TestInstanceFailsFastAndNamesThePath(t *testing.T) {
	s := newFakeIMDS(t)
	s.FailNext(awstest.PathIdentity, fault(404))
	// The slow lookup would hang for a minute: only the cancellation that the
	// first failure causes lets Instance return. The bound below catches a
	// hang; it is not a timing target.
	const slow = time.Minute
	s.SetDelay("meta-data/local-ipv4", slow)
	start := time.Now()
	_, err := New(fastOptions(s.URL, 3)).Instance(t.Context(), Want{})
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "dynamic/instance-identity/document") {
		t.Fatalf("error = %v, want ErrNotFound naming the identity document", err)
	}
	if strings.Contains(err.Error(), "canceled") {
		t.Errorf("error %q reports the cancellations it caused", err)
	}
	if elapsed := time.Since(start); elapsed >= slow/2 {
		t.Errorf("Instance took %s; the first failure should cancel the slow lookup", elapsed)
	}
}

func TestInstanceWithoutIPv6(t *testing.T) {
	s := newFakeIMDS(t)
	s.Set(macPrefix+"ipv6s", "\n")
	_, err := New(fastOptions(s.URL, 3)).Instance(t.Context(), Want{IPv6: true})
	if !errors.Is(err, ErrNoIPv6) {
		t.Fatalf("error = %v, want ErrNoIPv6", err)
	}
}

func TestEndpointFromEnvironmentAndNoProxy(t *testing.T) {
	s := newFakeIMDS(t)
	proxy := awstest.NewProxy(t, "")
	t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", s.URL)
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("NO_PROXY", "")
	c := New(Options{MaxAttempts: 2}) // endpoint from the environment
	mac, err := c.MAC(t.Context())
	if err != nil || mac != testMAC {
		t.Fatalf("MAC = %q, %v", mac, err)
	}
	if reqs := proxy.Requests(); len(reqs) != 0 {
		t.Errorf("IMDS requests went through the proxy: %q", reqs)
	}
	if n := s.Calls("meta-data/mac"); n != 1 {
		t.Errorf("IMDS served %d mac requests, want 1", n)
	}
}

func FuzzSplitLines(f *testing.F) {
	f.Add("2001:db8::5\n2001:db8::6\n")
	f.Add("\r\n \n10.0.0.0/16")
	f.Fuzz(func(t *testing.T, s string) {
		for _, line := range splitLines(s) {
			if line == "" || strings.ContainsAny(line, "\n") || strings.TrimSpace(line) != line {
				t.Fatalf("splitLines(%q) produced %q", s, line)
			}
		}
	})
}
