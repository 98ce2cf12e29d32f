package ec2inventory

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
	"github.com/nodeboot/nodeboot/internal/aws/awsconfig/sdkdefault"
	"github.com/nodeboot/nodeboot/internal/aws/ec2"
	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

const (
	instanceA = "i-0aaaaaaaaaaaaaaa1"
	instanceB = "i-0bbbbbbbbbbbbbbb2"
	instanceC = "i-0ccccccccccccccc3"
	nameA     = "ip-10-0-0-1.us-west-2.compute.internal"
)

var unauthorized = awstest.Fault{Status: http.StatusForbidden, Code: "UnauthorizedOperation", Message: "You are not authorized to perform this operation."}

type fixture struct {
	stub     *awstest.EC2
	clock    *clocktesting.FakeClock
	outcomes []string
}

// newSource returns a source asking the EC2 stub through the real SDK
// client, with 2 attempts per call and millisecond backoffs.
func newSource(t *testing.T, o Options) (*Source, *fixture) {
	t.Helper()
	awstest.IsolateEnv(t)
	f := &fixture{stub: awstest.NewEC2(t), clock: clocktesting.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))}
	t.Setenv("AWS_ENDPOINT_URL_EC2", f.stub.URL)
	cfg, err := sdkdefault.Load(t.Context(), awsconfig.Options{Region: "us-west-2", MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{instanceA, instanceB, instanceC} {
		f.stub.AddInstance(awstest.Instance{ID: id, PrivateDNSName: nameA, AvailabilityZone: "us-west-2a",
			Interfaces: []awstest.NetworkInterface{{PrivateIPs: []string{"10.0.0.1"}}}})
	}
	o.Clock = f.clock
	o.Observe = func(outcome string) { f.outcomes = append(f.outcomes, outcome) }
	return New(ec2.New(cfg, ec2.NameWait{}), o), f
}

func (f *fixture) calls() int { return f.stub.Calls(awstest.ActionDescribeInstances) }

func ids(ans policy.InventoryAnswer) []string {
	var out []string
	for _, in := range ans.Instances {
		out = append(out, in.ID+"/"+in.State)
	}
	return out
}

func TestLookupCachesFoundInstancesForTheTTL(t *testing.T) {
	s, f := newSource(t, Options{TTL: time.Minute})
	key := policy.InstanceKey{ID: instanceA}

	first := s.Lookup(t.Context(), key)
	if first.Err != nil || first.Key != key || !slices.Equal(ids(first), []string{instanceA + "/running"}) {
		t.Fatalf("Lookup() = %+v, want instance %s", first, instanceA)
	}
	if got := first.Instances[0].PrivateIPs[0].String(); got != "10.0.0.1" {
		t.Fatalf("private IP = %s, want 10.0.0.1", got)
	}
	f.clock.Step(59 * time.Second)
	if again := s.Lookup(t.Context(), key); !slices.Equal(ids(again), ids(first)) || f.calls() != 1 {
		t.Fatalf("second Lookup() = %+v after %d calls; want the cached answer and 1 call", again, f.calls())
	}
	f.clock.Step(time.Second)
	s.Lookup(t.Context(), key)
	if f.calls() != 2 {
		t.Fatalf("DescribeInstances calls after the TTL = %d, want 2", f.calls())
	}
	if want := []string{"found", "cache_hit", "found"}; !slices.Equal(f.outcomes, want) {
		t.Fatalf("outcomes = %q, want %q", f.outcomes, want)
	}
}

func TestLookupByPrivateDNSName(t *testing.T) {
	s, f := newSource(t, Options{})
	f.stub.AddInstance(awstest.Instance{ID: "i-0ddddddddddddddd4", PrivateDNSName: "ip-10-0-0-9.us-west-2.compute.internal"})
	ans := s.Lookup(t.Context(), policy.InstanceKey{PrivateDNSName: nameA})
	if want := []string{instanceA + "/running", instanceB + "/running", instanceC + "/running"}; ans.Err != nil || !slices.Equal(ids(ans), want) {
		t.Fatalf("Lookup() = %+v, want %q", ans, want)
	}
}

func TestLookupCachesAbsencesBriefly(t *testing.T) {
	for _, key := range []policy.InstanceKey{{ID: "i-0fffffffffffffff9"}, {PrivateDNSName: "ip-10-9-9-9.us-west-2.compute.internal"}} {
		t.Run(key.String(), func(t *testing.T) {
			s, f := newSource(t, Options{NotFoundTTL: 10 * time.Second})
			for range 2 {
				if ans := s.Lookup(t.Context(), key); ans.Err != nil || len(ans.Instances) != 0 || ans.Key != key {
					t.Fatalf("Lookup() = %+v, want no instances and no error", ans)
				}
			}
			f.clock.Step(10 * time.Second)
			s.Lookup(t.Context(), key)
			if f.calls() != 2 {
				t.Fatalf("DescribeInstances calls = %d, want 2 (one, a cache hit, one after the TTL)", f.calls())
			}
			if want := []string{"not_found", "cache_hit", "not_found"}; !slices.Equal(f.outcomes, want) {
				t.Fatalf("outcomes = %q, want %q", f.outcomes, want)
			}
		})
	}
}

// TestAbsenceTTLNeverOutlivesTheTTL: an operator who shortens the cache TTL
// below DefaultNotFoundTTL, or disables the cache, gets no absence reused
// longer than that.
func TestAbsenceTTLNeverOutlivesTheTTL(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		// wantCalls after a lookup, a second one 1 s later, a third one
		// 2 s after the first.
		wantCalls int
	}{
		{name: "default TTLs", opts: Options{}, wantCalls: 1},
		{name: "TTL 2s", opts: Options{TTL: 2 * time.Second}, wantCalls: 2},
		{name: "cache disabled", opts: Options{TTL: -1}, wantCalls: 3},
		{name: "explicit absence TTL wins", opts: Options{TTL: 2 * time.Second, NotFoundTTL: 5 * time.Second}, wantCalls: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, f := newSource(t, tc.opts)
			key := policy.InstanceKey{ID: "i-0fffffffffffffff9"}
			s.Lookup(t.Context(), key)
			f.clock.Step(time.Second)
			s.Lookup(t.Context(), key)
			f.clock.Step(time.Second)
			s.Lookup(t.Context(), key)
			if f.calls() != tc.wantCalls {
				t.Fatalf("DescribeInstances calls = %d, want %d (outcomes %q)", f.calls(), tc.wantCalls, f.outcomes)
			}
		})
	}
}

func TestLookupFailuresAreNotCached(t *testing.T) {
	tests := []struct {
		name          string
		key           policy.InstanceKey
		faults        []awstest.Fault
		delay         time.Duration
		wantErr       string
		wantTransient bool
	}{
		{
			name: "throttled on every attempt", key: policy.InstanceKey{ID: instanceA},
			faults:  []awstest.Fault{awstest.EC2Throttling, awstest.EC2Throttling},
			wantErr: "gave up after 2 attempts", wantTransient: true,
		},
		{
			name: "access denied", key: policy.InstanceKey{ID: instanceA}, faults: []awstest.Fault{unauthorized},
			wantErr: "UnauthorizedOperation",
		},
		{
			name: "endpoint hangs past the lookup timeout", key: policy.InstanceKey{ID: instanceA}, delay: time.Hour,
			wantErr: "(lookup timeout 200ms)", wantTransient: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, f := newSource(t, Options{Timeout: 200 * time.Millisecond})
			f.stub.FailNext(awstest.ActionDescribeInstances, tc.faults...)
			f.stub.SetDelay(awstest.ActionDescribeInstances, tc.delay)

			ans := s.Lookup(t.Context(), tc.key)

			if len(ans.Instances) != 0 || ans.Key != tc.key {
				t.Fatalf("Lookup() = %+v, want no instances for %+v", ans, tc.key)
			}
			if ans.Err == nil || !strings.Contains(ans.Err.Error(), tc.wantErr) {
				t.Fatalf("Lookup() error = %v, want %q", ans.Err, tc.wantErr)
			}
			if ans.Transient != tc.wantTransient {
				t.Errorf("Transient = %v, want %v", ans.Transient, tc.wantTransient)
			}
			f.stub.SetDelay(awstest.ActionDescribeInstances, 0)
			before := f.calls()
			s.Lookup(t.Context(), tc.key)
			if f.calls() != before+1 {
				t.Errorf("the next Lookup() made %d calls, want 1: nothing may be cached", f.calls()-before)
			}
			if f.outcomes[0] != "error" {
				t.Errorf("outcome = %q, want error", f.outcomes[0])
			}
		})
	}
}

func TestLookupNegativeTTLsDisableTheCache(t *testing.T) {
	s, f := newSource(t, Options{TTL: -1, NotFoundTTL: -1})
	for _, key := range []policy.InstanceKey{{ID: instanceA}, {ID: "i-0fffffffffffffff9"}} {
		s.Lookup(t.Context(), key)
		s.Lookup(t.Context(), key)
	}
	if f.calls() != 4 {
		t.Fatalf("DescribeInstances calls = %d, want 4", f.calls())
	}
}

func TestCacheIsBounded(t *testing.T) {
	s, f := newSource(t, Options{TTL: time.Minute, MaxEntries: 2})
	for _, id := range []string{instanceA, instanceB} {
		s.Lookup(t.Context(), policy.InstanceKey{ID: id})
		f.clock.Step(time.Second)
	}
	s.Lookup(t.Context(), policy.InstanceKey{ID: instanceC}) // evicts A, the oldest
	if len(s.cache) != 2 {
		t.Fatalf("cache holds %d entries, want 2", len(s.cache))
	}
	before := f.calls()
	s.Lookup(t.Context(), policy.InstanceKey{ID: instanceB})
	s.Lookup(t.Context(), policy.InstanceKey{ID: instanceC})
	if f.calls() != before {
		t.Fatalf("B and C were not cached: %d calls", f.calls()-before)
	}
	s.Lookup(t.Context(), policy.InstanceKey{ID: instanceA})
	if f.calls() != before+1 {
		t.Fatalf("A was not evicted: %d calls", f.calls()-before)
	}
	// Expired entries go first.
	f.clock.Step(2 * time.Minute)
	s.Lookup(t.Context(), policy.InstanceKey{ID: instanceB})
	if len(s.cache) != 1 {
		t.Fatalf("cache holds %d entries after expiry, want 1", len(s.cache))
	}
}
