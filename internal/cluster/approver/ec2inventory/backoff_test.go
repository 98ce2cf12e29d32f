package ec2inventory

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// TestThrottledBurstBacksOffTheQueuedBatches: while EC2 throttles, a burst
// of lookups larger than a batch costs one call (its SDK attempts); the
// batches still queued are answered with the failure during the backoff
// instead of being called one after another.
func TestThrottledBurstBacksOffTheQueuedBatches(t *testing.T) {
	tests := []struct {
		name      string
		keys      int
		batchSize int
		wantCalls int // HTTP requests: one call of 2 attempts
	}{
		{name: "three batches queued", keys: 5, batchSize: 2, wantCalls: 2},
		{name: "seven full batches queued", keys: 1000, batchSize: 150, wantCalls: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The whole burst is queued before the source starts, so that
			// every lookup waits for the first call: on a loaded machine a
			// started source could fail that call mid-burst, and the
			// backoff would then answer the rest at once, never queued.
			s, f := newIdleSource(t, Options{BatchSize: tc.batchSize})
			f.stub.FailAlways(awstest.ActionDescribeInstances, awstest.EC2Throttling)
			var keys []policy.InstanceKey
			for i := range tc.keys {
				keys = append(keys, policy.InstanceKey{ID: fmt.Sprintf("i-0%016x", i+1)})
			}
			for _, k := range keys {
				if _, ok := s.Lookup(t.Context(), k); ok {
					t.Fatalf("Lookup(%s) answered before any call", k)
				}
			}
			start(t, s)
			waitReady(t, f, keys...)
			if got := f.calls(); got != tc.wantCalls {
				t.Errorf("DescribeInstances requests = %d, want %d", got, tc.wantCalls)
			}
			for _, k := range keys {
				ans, ok := s.Lookup(t.Context(), k)
				if !ok || ans.Err == nil || !ans.Transient || len(ans.Instances) != 0 || !strings.Contains(ans.Err.Error(), "RequestLimitExceeded") {
					t.Fatalf("Lookup(%s) = %+v, %v; want the transient throttling failure", k, ans, ok)
				}
			}
		})
	}
}

// TestRateLimitWaitPastTheTimeoutIsTransient: a call the client-side rate
// limit holds past the lookup timeout fails as a timeout does, transiently,
// so that its CSRs wait rather than being denied at once.
func TestRateLimitWaitPastTheTimeoutIsTransient(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{name: "one token, taken by DescribeCluster", opts: Options{Rate: 0.05, Burst: 1, Timeout: 200 * time.Millisecond}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, f := newSource(t, tc.opts)
			ans := lookup(t, s, f, policy.InstanceKey{ID: instanceA})
			if ans.Err == nil || !ans.Transient {
				t.Fatalf("Lookup() = %+v, want a transient rate-limit failure", ans)
			}
			if f.calls() != 0 {
				t.Errorf("DescribeInstances requests = %d, want 0", f.calls())
			}
		})
	}
}
