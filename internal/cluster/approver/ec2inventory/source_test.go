package ec2inventory

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
	"github.com/nodeboot/nodeboot/internal/aws/awsconfig/sdkdefault"
	"github.com/nodeboot/nodeboot/internal/aws/ec2"
	"github.com/nodeboot/nodeboot/internal/aws/ec2/ec2instance"
	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

const (
	instanceA = "i-0aaaaaaaaaaaaaaa1"
	instanceB = "i-0bbbbbbbbbbbbbbb2"
	instanceC = "i-0ccccccccccccccc3"
	nameA     = "ip-10-0-0-1.us-west-2.compute.internal"
	testVPC   = "vpc-0123456789abcdef0"
	// hangGuard bounds waits that only catch a hang.
	hangGuard = time.Minute
)

var (
	unauthorized = awstest.Fault{Status: http.StatusForbidden, Code: "UnauthorizedOperation", Message: "You are not authorized to perform this operation."}
	testHome     = policy.ClusterHome{VPCID: testVPC, AccountID: awstest.DefaultAccountID}
)

type fixture struct {
	stub  *awstest.EC2
	clock *clocktesting.FakeClock
	// ready receives every key the source answered.
	ready chan policy.InstanceKey

	mu        sync.Mutex
	outcomes  []string
	homeCalls int
	homeErr   error
}

func (f *fixture) outcomesSoFar() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.outcomes)
}

// newSource returns a started source asking the EC2 stub through the real
// SDK client, with 2 attempts per call and millisecond backoffs, and a
// window of 5 ms unless o sets one.
// newIdleSource returns a source over a fresh EC2 stub, not started, and
// its fixture.
func newIdleSource(t *testing.T, o Options) (*Source, *fixture) {
	t.Helper()
	awstest.IsolateEnv(t)
	f := &fixture{stub: awstest.NewEC2(t), clock: clocktesting.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
		ready: make(chan policy.InstanceKey, 1000)}
	t.Setenv("AWS_ENDPOINT_URL_EC2", f.stub.URL)
	cfg, err := sdkdefault.Load(t.Context(), awsconfig.Options{Region: "us-west-2", MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{instanceA, instanceB, instanceC} {
		f.stub.AddInstance(awstest.Instance{ID: id, PrivateDNSName: nameA, AvailabilityZone: "us-west-2a", VPCID: testVPC,
			OwnerID: awstest.DefaultAccountID, Interfaces: []awstest.NetworkInterface{{PrivateIPs: []string{"10.0.0.1"}}}})
	}
	o.Clock = f.clock
	if o.Window == 0 {
		o.Window = 5 * time.Millisecond
	}
	o.Observe = func(outcome string) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.outcomes = append(f.outcomes, outcome)
	}
	home := func(context.Context) (policy.ClusterHome, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.homeCalls++
		return testHome, f.homeErr
	}
	s := New(ec2.New(cfg, ec2.NameWait{}), home, o)
	s.OnReady(func(k policy.InstanceKey) { f.ready <- k })
	return s, f
}

// newSource returns a started source (newIdleSource) and its fixture.
func newSource(t *testing.T, o Options) (*Source, *fixture) {
	t.Helper()
	s, f := newIdleSource(t, o)
	start(t, s)
	return s, f
}

// start runs s until the test ends.
func start(t *testing.T, s *Source) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

func (f *fixture) calls() int { return f.stub.Calls(awstest.ActionDescribeInstances) }

// lookup returns the answer for key, waiting for the call it queues.
func lookup(t *testing.T, s *Source, f *fixture, key policy.InstanceKey) policy.InventoryAnswer {
	t.Helper()
	if ans, ok := s.Lookup(t.Context(), key); ok {
		return ans
	}
	waitReady(t, f, key)
	ans, ok := s.Lookup(t.Context(), key)
	if !ok {
		t.Fatalf("Lookup(%s) after its answer came: not ready", key)
	}
	return ans
}

func waitReady(t *testing.T, f *fixture, keys ...policy.InstanceKey) {
	t.Helper()
	want := map[policy.InstanceKey]bool{}
	for _, k := range keys {
		want[k] = true
	}
	for len(want) > 0 {
		select {
		case k := <-f.ready:
			delete(want, k)
		case <-time.After(hangGuard):
			t.Fatalf("no answer for %d keys", len(want))
		}
	}
}

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

	first := lookup(t, s, f, key)
	if first.Err != nil || first.Key != key || !slices.Equal(ids(first), []string{instanceA + "/running"}) || first.Home != testHome {
		t.Fatalf("Lookup() = %+v, want instance %s in %+v", first, instanceA, testHome)
	}
	if in := first.Instances[0]; in.PrivateIP.String() != "10.0.0.1" || in.VPCID != testVPC || in.OwnerID != awstest.DefaultAccountID {
		t.Fatalf("instance = %+v, want private IP 10.0.0.1 in %s of %s", in, testVPC, awstest.DefaultAccountID)
	}
	f.clock.Step(59 * time.Second)
	if again := lookup(t, s, f, key); !slices.Equal(ids(again), ids(first)) || f.calls() != 1 {
		t.Fatalf("second Lookup() = %+v after %d calls; want the cached answer and 1 call", again, f.calls())
	}
	f.clock.Step(time.Second)
	lookup(t, s, f, key)
	if f.calls() != 2 {
		t.Fatalf("DescribeInstances calls after the TTL = %d, want 2", f.calls())
	}
	if want := []string{"queued", "found", "cache_hit", "cache_hit", "queued", "found", "cache_hit"}; !slices.Equal(f.outcomesSoFar(), want) {
		t.Fatalf("outcomes = %q, want %q", f.outcomesSoFar(), want)
	}
	if f.homeCalls != 1 {
		t.Fatalf("the cluster's home was asked for %d times, want once", f.homeCalls)
	}
}

func TestLookupByPrivateDNSName(t *testing.T) {
	s, f := newSource(t, Options{})
	f.stub.AddInstance(awstest.Instance{ID: "i-0ddddddddddddddd4", PrivateDNSName: "ip-10-0-0-9.us-west-2.compute.internal"})
	ans := lookup(t, s, f, policy.InstanceKey{PrivateDNSName: nameA})
	if want := []string{instanceA + "/running", instanceB + "/running", instanceC + "/running"}; ans.Err != nil || !slices.Equal(ids(ans), want) {
		t.Fatalf("Lookup() = %+v, want %q", ans, want)
	}
}

// TestConcurrentLookupsShareCalls queues lookups of 400 instances (and two
// private DNS names) in one window: they are answered by calls of at most
// ec2.MaxFilterValues values each, one filter per call.
func TestConcurrentLookupsShareCalls(t *testing.T) {
	// The lookups are all queued before the source starts, so that the
	// batches do not depend on how fast this goroutine queues them
	// (within leadingDelay on a quiet machine, not on a loaded one).
	s, f := newIdleSource(t, Options{Window: 50 * time.Millisecond})
	var mu sync.Mutex
	var sizes []string
	s.opts.ObserveCall = func(op string, n int, err error) {
		mu.Lock()
		defer mu.Unlock()
		sizes = append(sizes, fmt.Sprintf("%s:%d:%v", op, n, err))
	}
	var keys []policy.InstanceKey
	for i := range 400 {
		id := fmt.Sprintf("i-0%016x", i+1)
		f.stub.AddInstance(awstest.Instance{ID: id, PrivateDNSName: fmt.Sprintf("ip-10-1-%d-%d.us-west-2.compute.internal", i/250, i%250)})
		keys = append(keys, policy.InstanceKey{ID: id})
	}
	keys = append(keys, policy.InstanceKey{PrivateDNSName: nameA}, policy.InstanceKey{PrivateDNSName: "ip-10-9-9-9.us-west-2.compute.internal"})
	for _, k := range keys {
		if _, ok := s.Lookup(t.Context(), k); ok {
			t.Fatalf("Lookup(%s) answered before any call", k)
		}
	}
	start(t, s)
	waitReady(t, f, keys...)
	mu.Lock()
	defer mu.Unlock()
	want := []string{"DescribeCluster:0:<nil>", "DescribeInstances:150:<nil>", "DescribeInstances:150:<nil>", "DescribeInstances:100:<nil>", "DescribeInstances:2:<nil>"}
	if !slices.Equal(sizes, want) {
		t.Fatalf("calls = %q, want %q", sizes, want)
	}
	// Each call reaches EC2 once: no retry of an answered call
	// (awsconfig.WithPlainRequestBodies, aws/aws-sdk-go-v2#2737).
	filters := map[string]int{}
	for _, r := range f.stub.Requests() {
		filters[fmt.Sprintf("%s:%d", r.Get("Filter.1.Name"), countValues(r))]++
	}
	if want := map[string]int{"instance-id:150": 2, "instance-id:100": 1, "private-dns-name:2": 1}; !maps.Equal(filters, want) {
		t.Errorf("requests = %v, want %v", filters, want)
	}
	for _, k := range keys {
		ans, ok := s.Lookup(t.Context(), k)
		wantFound := k.PrivateDNSName != "ip-10-9-9-9.us-west-2.compute.internal"
		if !ok || ans.Err != nil || (len(ans.Instances) > 0) != wantFound {
			t.Fatalf("Lookup(%s) = %+v, %v; want found %v", k, ans, ok, wantFound)
		}
	}
}

func countValues(r url.Values) int {
	n := 0
	for ; r.Get(fmt.Sprintf("Filter.1.Value.%d", n+1)) != ""; n++ {
	}
	return n
}

func TestLookupCachesAbsencesBriefly(t *testing.T) {
	for _, key := range []policy.InstanceKey{{ID: "i-0fffffffffffffff9"}, {PrivateDNSName: "ip-10-9-9-9.us-west-2.compute.internal"}} {
		t.Run(key.String(), func(t *testing.T) {
			s, f := newSource(t, Options{NotFoundTTL: 10 * time.Second})
			for range 2 {
				if ans := lookup(t, s, f, key); ans.Err != nil || len(ans.Instances) != 0 || ans.Key != key {
					t.Fatalf("Lookup() = %+v, want no instances and no error", ans)
				}
			}
			f.clock.Step(10 * time.Second)
			lookup(t, s, f, key)
			if f.calls() != 2 {
				t.Fatalf("DescribeInstances calls = %d, want 2 (one, a cache hit, one after the TTL)", f.calls())
			}
		})
	}
}

// TestAbsenceTTLNeverOutlivesTheTTL: an operator who shortens the cache TTL
// below DefaultNotFoundTTL, or disables the cache, gets no absence reused
// longer than that, nor than the few seconds an answer is kept for the
// lookups it wakes.
func TestAbsenceTTLNeverOutlivesTheTTL(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		// wantCalls after lookups at 0 s, 6 s and 12 s.
		wantCalls int
	}{
		{name: "default TTLs", opts: Options{}, wantCalls: 2},
		{name: "TTL 2s", opts: Options{TTL: 2 * time.Second}, wantCalls: 3},
		{name: "cache disabled", opts: Options{TTL: -1}, wantCalls: 3},
		{name: "explicit absence TTL wins", opts: Options{TTL: 2 * time.Second, NotFoundTTL: 20 * time.Second}, wantCalls: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, f := newSource(t, tc.opts)
			key := policy.InstanceKey{ID: "i-0fffffffffffffff9"}
			for range 3 {
				lookup(t, s, f, key)
				f.clock.Step(6 * time.Second)
			}
			if f.calls() != tc.wantCalls {
				t.Fatalf("DescribeInstances calls = %d, want %d (outcomes %q)", f.calls(), tc.wantCalls, f.outcomesSoFar())
			}
		})
	}
}

// TestFailuresAreCachedWithBackoff: a failed call answers its keys with
// the failure, and every lookup during the backoff too, without a call;
// the backoff doubles with each failure in a row and ends with a success.
func TestFailuresAreCachedWithBackoff(t *testing.T) {
	tests := []struct {
		name          string
		faults        []awstest.Fault
		delay         time.Duration
		wantErr       string
		wantTransient bool
	}{
		{
			name:    "throttled on every attempt",
			faults:  []awstest.Fault{awstest.EC2Throttling, awstest.EC2Throttling},
			wantErr: "gave up after 2 attempts", wantTransient: true,
		},
		{name: "access denied", faults: []awstest.Fault{unauthorized}, wantErr: "UnauthorizedOperation"},
		{name: "endpoint hangs past the lookup timeout", delay: time.Hour, wantErr: "(lookup timeout 200ms)", wantTransient: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, f := newSource(t, Options{Timeout: 200 * time.Millisecond, MinBackoff: time.Second})
			f.stub.FailNext(awstest.ActionDescribeInstances, tc.faults...)
			f.stub.SetDelay(awstest.ActionDescribeInstances, tc.delay)
			key := policy.InstanceKey{ID: instanceA}

			ans := lookup(t, s, f, key)
			if len(ans.Instances) != 0 || ans.Key != key || ans.Err == nil || !strings.Contains(ans.Err.Error(), tc.wantErr) {
				t.Fatalf("Lookup() = %+v, want no instances and an error with %q", ans, tc.wantErr)
			}
			if ans.Transient != tc.wantTransient {
				t.Errorf("Transient = %v, want %v", ans.Transient, tc.wantTransient)
			}
			f.stub.SetDelay(awstest.ActionDescribeInstances, 0)
			calls := f.calls()
			other, ok := s.Lookup(t.Context(), policy.InstanceKey{ID: instanceB})
			if !ok || other.Err == nil || !strings.Contains(other.Err.Error(), "no EC2 call until") || f.calls() != calls {
				t.Fatalf("another Lookup() during the backoff = %+v, %v after %d calls; want the failure at once, no call", other, ok, f.calls()-calls)
			}
			f.clock.Step(time.Second)
			if ans := lookup(t, s, f, key); ans.Err != nil || f.calls() != calls+1 {
				t.Fatalf("Lookup() after the backoff = %+v after %d calls; want the instance from 1 call", ans, f.calls()-calls)
			}
		})
	}
}

func TestBackoffDoublesAndEndsWithASuccess(t *testing.T) {
	var b backoff
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var got []time.Duration
	for range 8 {
		got = append(got, b.fail(now, errors.New("throttled"), true, time.Second, 30*time.Second).Sub(now))
	}
	want := []time.Duration{1, 2, 4, 8, 16, 30, 30, 30}
	for i := range want {
		want[i] *= time.Second
	}
	if !slices.Equal(got, want) {
		t.Fatalf("backoffs = %v, want %v", got, want)
	}
	if _, ok := b.failure(now.Add(29 * time.Second)); !ok {
		t.Fatal("no failure during the backoff")
	}
	if _, ok := b.failure(now.Add(30 * time.Second)); ok {
		t.Fatal("a failure after the backoff")
	}
}

// TestClusterHomeFailureIsAnswered: while the cluster's VPC and account
// cannot be found, no instance is looked up and the keys get that failure.
func TestClusterHomeFailureIsAnswered(t *testing.T) {
	s, f := newSource(t, Options{MinBackoff: time.Second})
	f.homeErr = errors.New("eks DescribeCluster \"prod\": AccessDeniedException")
	ans := lookup(t, s, f, policy.InstanceKey{ID: instanceA})
	if ans.Err == nil || !strings.Contains(ans.Err.Error(), "find the cluster's VPC and account: eks DescribeCluster") || f.calls() != 0 {
		t.Fatalf("Lookup() = %+v after %d DescribeInstances calls; want the DescribeCluster failure and none", ans, f.calls())
	}
	f.mu.Lock()
	f.homeErr = nil
	f.mu.Unlock()
	f.clock.Step(time.Second)
	if ans := lookup(t, s, f, policy.InstanceKey{ID: instanceA}); ans.Err != nil || ans.Home != testHome {
		t.Fatalf("Lookup() once the cluster is found = %+v", ans)
	}
}

// startRecorder records when each call starts.
type startRecorder struct {
	mu     sync.Mutex
	starts []time.Time
}

func (r *startRecorder) note() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.starts = append(r.starts, time.Now())
}

func (r *startRecorder) InstancesByFilter(context.Context, string, []string) ([]ec2instance.Instance, error) {
	r.note()
	return nil, nil
}

// TestCallsArePaced: with a rate of 10 calls a second and no burst, each
// call starts at least 100 ms after the one before (a lower bound the
// limiter guarantees, whatever the machine's load).
func TestCallsArePaced(t *testing.T) {
	rec := &startRecorder{}
	home := func(context.Context) (policy.ClusterHome, error) { rec.note(); return testHome, nil }
	created := time.Now()
	s := New(rec, home, Options{Rate: 10, Burst: 1, Window: time.Millisecond})
	ready := make(chan policy.InstanceKey, 10)
	s.OnReady(func(k policy.InstanceKey) { ready <- k })
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() { _ = s.Start(ctx) }()
	for _, id := range []string{instanceA, instanceB} {
		if _, ok := s.Lookup(t.Context(), policy.InstanceKey{ID: id}); ok {
			t.Fatal("answered before any call")
		}
		select {
		case <-ready:
		case <-time.After(hangGuard):
			t.Fatal("no answer")
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.starts) != 3 {
		t.Fatalf("%d calls, want 3 (DescribeCluster, then two DescribeInstances)", len(rec.starts))
	}
	// The limiter holds one token from its creation on and adds one each
	// 100 ms: call i (from 0) cannot start before created + i × 100 ms. A
	// bound from creation, not between two starts: a goroutine the
	// scheduler delays after its token shortens the gap to the next call
	// without the limiter being wrong.
	for i, start := range rec.starts {
		if since, floor := start.Sub(created), time.Duration(i)*100*time.Millisecond-time.Millisecond; since < floor {
			t.Errorf("call %d started %s after the limiter was made, want at least %s", i+1, since, floor)
		}
	}
}

func TestCacheIsBounded(t *testing.T) {
	s, f := newSource(t, Options{TTL: time.Minute, MaxEntries: 2})
	for _, id := range []string{instanceA, instanceB} {
		lookup(t, s, f, policy.InstanceKey{ID: id})
		f.clock.Step(time.Second)
	}
	lookup(t, s, f, policy.InstanceKey{ID: instanceC}) // evicts A, the oldest
	if len(s.cache) != 2 {
		t.Fatalf("cache holds %d entries, want 2", len(s.cache))
	}
	before := f.calls()
	lookup(t, s, f, policy.InstanceKey{ID: instanceB})
	lookup(t, s, f, policy.InstanceKey{ID: instanceC})
	if f.calls() != before {
		t.Fatalf("B and C were not cached: %d calls", f.calls()-before)
	}
	lookup(t, s, f, policy.InstanceKey{ID: instanceA})
	if f.calls() != before+1 {
		t.Fatalf("A was not evicted: %d calls", f.calls()-before)
	}
}

// TestALoneLookupIsNotHeldForTheWindow: with an hour's window, a lookup
// after a quiet spell is still answered (within the hang guard): only the
// lookups queued while calls follow each other wait for the window.
func TestALoneLookupIsNotHeldForTheWindow(t *testing.T) {
	s, f := newSource(t, Options{Window: time.Hour})
	if ans := lookup(t, s, f, policy.InstanceKey{ID: instanceA}); ans.Err != nil || len(ans.Instances) != 1 {
		t.Fatalf("Lookup() = %+v", ans)
	}
}

// TestPrefetchQueuesWithoutCountingALookup: a prefetched key is answered
// by a call, after which Lookup finds the answer at hand; only the
// lookups and the call's answer are observed.
func TestPrefetchQueuesWithoutCountingALookup(t *testing.T) {
	s, f := newSource(t, Options{})
	key := policy.InstanceKey{ID: instanceB}
	for range 2 { // the second finds the key queued
		if s.Prefetch(key) {
			t.Fatal("Prefetch() reported an answer at hand before any call")
		}
	}
	waitReady(t, f, key)
	ans, ok := s.Lookup(t.Context(), key)
	if !ok || !slices.Equal(ids(ans), []string{instanceB + "/running"}) {
		t.Fatalf("Lookup() after a prefetch = %+v, %v; want the answer at hand", ans, ok)
	}
	if !s.Prefetch(key) { // at hand: no call
		t.Fatal("Prefetch() after the call: answer not at hand")
	}
	if f.calls() != 1 {
		t.Fatalf("DescribeInstances calls = %d, want 1", f.calls())
	}
	if want := []string{"found", "cache_hit"}; !slices.Equal(f.outcomesSoFar(), want) {
		t.Fatalf("outcomes = %q, want %q", f.outcomesSoFar(), want)
	}
}

// heldDescriber holds each call until released and records its values.
type heldDescriber struct {
	started chan []string
	release chan struct{}
}

func (d *heldDescriber) InstancesByFilter(ctx context.Context, _ string, values []string) ([]ec2instance.Instance, error) {
	d.started <- slices.Clone(values)
	select {
	case <-d.release:
	case <-ctx.Done():
	}
	return nil, nil
}

// TestLookupsQueuedDuringACallWaitForTheWindow: a lookup queued while a
// call is out does not go alone right after it; it waits for the window
// (an hour here), which a full batch (two keys) cuts short.
func TestLookupsQueuedDuringACallWaitForTheWindow(t *testing.T) {
	d := &heldDescriber{started: make(chan []string, 4), release: make(chan struct{})}
	s := New(d, func(context.Context) (policy.ClusterHome, error) { return testHome, nil }, Options{Window: time.Hour, BatchSize: 2})
	ready := make(chan policy.InstanceKey, 4)
	s.OnReady(func(k policy.InstanceKey) { ready <- k })
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	nextCall := func() []string {
		t.Helper()
		select {
		case v := <-d.started:
			return v
		case <-time.After(hangGuard):
			t.Fatal("no call")
			return nil
		}
	}
	s.Lookup(t.Context(), policy.InstanceKey{ID: instanceA})
	if got := nextCall(); !slices.Equal(got, []string{instanceA}) {
		t.Fatalf("first call asked about %q, want A alone", got)
	}
	s.Lookup(t.Context(), policy.InstanceKey{ID: instanceB}) // while the first call is out
	close(d.release)
	waitAnswered := func(n int) {
		t.Helper()
		for range n {
			select {
			case <-ready:
			case <-time.After(hangGuard):
				t.Fatal("not every key was answered")
			}
		}
	}
	waitAnswered(1) // A: the first call is over
	s.Lookup(t.Context(), policy.InstanceKey{ID: instanceC})
	if got := nextCall(); !slices.Equal(got, []string{instanceB, instanceC}) {
		t.Fatalf("second call asked about %q, want B and C together", got)
	}
	waitAnswered(2)
}

// TestWindowFollowsTheRate: without a window of its own, a source calls at
// most once per 2/Rate during a burst.
func TestWindowFollowsTheRate(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		want time.Duration
	}{
		{name: "defaults", want: 400 * time.Millisecond},
		{name: "20 calls a second", opts: Options{Rate: 20}, want: 100 * time.Millisecond},
		{name: "half a call a second", opts: Options{Rate: 0.5}, want: 4 * time.Second},
		{name: "a window of its own", opts: Options{Rate: 20, Window: time.Second}, want: time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.opts.withDefaults().Window; got != tc.want {
				t.Fatalf("window %s, want %s", got, tc.want)
			}
		})
	}
}
