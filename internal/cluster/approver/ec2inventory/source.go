// Package ec2inventory answers the approver's inventory questions from the
// EC2 API. Lookups never block: a key not in the cache joins the next batch,
// and concurrent lookups are coalesced into DescribeInstances calls of up to
// ec2.MaxFilterValues instance IDs (or private DNS names) each, paced by a
// client-side rate limit. Answers, absences and failures are cached; after a
// failed call (throttling above all) the source backs off exponentially and
// answers every lookup with that failure until the backoff ends. The
// cluster's VPC and account, which every instance must be in, come from a
// HomeFunc (eks:DescribeCluster) once.
package ec2inventory

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/utils/clock"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
	"github.com/nodeboot/nodeboot/internal/aws/ec2"
	"github.com/nodeboot/nodeboot/internal/aws/ec2/ec2instance"
	"github.com/nodeboot/nodeboot/internal/cluster/approver"
	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
)

// Defaults of Options.
const (
	// DefaultTTL is how long a found instance is reused. Addresses rarely
	// change, but a secondary IP or an Elastic IP can move to another
	// instance; a minute bounds how stale an approval can be and still
	// spares EC2 the repeated decisions of one join.
	DefaultTTL = time.Minute
	// DefaultNotFoundTTL is how long an answer without instances is
	// reused: long enough that a node flooding CSRs for an instance EC2
	// does not know costs one call per period, short enough for EC2's
	// eventual consistency after a launch.
	DefaultNotFoundTTL = 10 * time.Second
	// DefaultTimeout bounds one call, the SDK's retries included.
	DefaultTimeout = 10 * time.Second
	// DefaultMaxEntries bounds the cache; one entry per node.
	DefaultMaxEntries = 10000
	// leadingDelay is how long a lookup after a quiet window waits for
	// lookups queued with it (the CSRs of nodes that joined together).
	leadingDelay = 10 * time.Millisecond
	// DefaultRate and DefaultBurst pace the calls (DescribeInstances and
	// DescribeCluster). EC2 refills an account's bucket of non-mutating
	// calls at 20 a second per region (100 at most); the approver takes a
	// quarter, leaving the rest to the account's other tools (the cloud
	// controller manager, autoscalers, the VPC CNI).
	DefaultRate  = 5
	DefaultBurst = 10
	// DefaultMinBackoff and DefaultMaxBackoff bound the pause after a
	// failed call, which doubles with every further failure.
	DefaultMinBackoff = time.Second
	DefaultMaxBackoff = time.Minute
	// deliveryGrace keeps an answer at least this long, so that the
	// lookups woken by Ready find it even with the cache turned off.
	deliveryGrace = 5 * time.Second
)

// Describer is the part of the EC2 client the source calls.
type Describer interface {
	InstancesByFilter(ctx context.Context, name string, values []string) ([]ec2instance.Instance, error)
}

// HomeFunc returns the cluster's VPC and account (eks:DescribeCluster, or
// the operator's flags).
type HomeFunc func(ctx context.Context) (policy.ClusterHome, error)

// Options tunes New; zero values mean the defaults.
type Options struct {
	// TTL is how long an answer that found instances is reused; negative
	// keeps it only for delivery (a few seconds).
	TTL time.Duration
	// NotFoundTTL is how long an answer without instances is reused;
	// negative keeps it only for delivery. 0 means DefaultNotFoundTTL, or
	// TTL when that is shorter (or disabled).
	NotFoundTTL time.Duration
	// Timeout bounds one call.
	Timeout time.Duration
	// MaxEntries bounds the number of cached answers.
	MaxEntries int
	// Window is the least time between the starts of two calls: lookups
	// queued meanwhile wait for the next call. 0 means one call per
	// 2/Rate (rateWindow).
	Window time.Duration
	// BatchSize bounds the keys of one call; at most ec2.MaxFilterValues.
	BatchSize int
	// Rate (calls a second) and Burst pace the calls.
	Rate  float64
	Burst int
	// MinBackoff and MaxBackoff bound the pause after a failed call.
	MinBackoff, MaxBackoff time.Duration
	// Clock tells the time; nil means the real clock.
	Clock clock.PassiveClock
	// Observe, when not nil, is called with the outcome of every lookup:
	// "cache_hit", "queued", "backoff", and for every key a call answered
	// "found", "not_found" or "error".
	Observe func(outcome string)
	// ObserveCall, when not nil, is called after every API call with its
	// operation, the number of keys it answered and its error.
	ObserveCall func(operation string, keys int, err error)
}

func (o Options) withDefaults() Options {
	if o.TTL == 0 {
		o.TTL = DefaultTTL
	}
	if o.NotFoundTTL == 0 {
		// Never longer than TTL: a shorter or disabled cache is meant
		// for absences too.
		o.NotFoundTTL = min(DefaultNotFoundTTL, o.TTL)
	}
	o.TTL, o.NotFoundTTL = max(o.TTL, deliveryGrace), max(o.NotFoundTTL, deliveryGrace)
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.BatchSize <= 0 || o.BatchSize > ec2.MaxFilterValues {
		o.BatchSize = ec2.MaxFilterValues
	}
	if o.Rate <= 0 {
		o.Rate = DefaultRate
	}
	if o.Burst <= 0 {
		o.Burst = DefaultBurst
	}
	if o.Window <= 0 {
		o.Window = rateWindow(o.Rate)
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = DefaultMinBackoff
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(DefaultMaxBackoff, o.MinBackoff)
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	return o
}

// rateWindow is the window of a source paced at rate calls a second: one
// call per 2/rate. During a join burst the calls then take half the
// approver's share of the account's bucket (400 ms, a batch of up to 150
// instances, at the default 5 a second): 1,000 Nodes registering over 4
// to 6 seconds on a loaded control plane cost 10 to 15 calls, and the
// other half of the share and the Burst stay for retries and for lookups
// after a quiet window, which wait only leadingDelay. The lookups of newly
// registered Nodes gather while their kubelets get to their serving CSRs
// (up to a second later), so the window seldom delays a decision.
func rateWindow(rate float64) time.Duration {
	return time.Duration(2 * float64(time.Second) / rate)
}

// Source is an approver.Inventory backed by EC2. It is safe for concurrent
// use; Start runs its calls.
type Source struct {
	ec2     Describer
	homeFn  HomeFunc
	opts    Options
	limiter *rate.Limiter
	kick    chan struct{}

	// lastCall is when the last call started (Start's goroutine only).
	lastCall time.Time

	mu      sync.Mutex
	ready   func(policy.InstanceKey)
	cache   map[policy.InstanceKey]entry
	queued  map[policy.InstanceKey]bool
	queue   []policy.InstanceKey
	home    *policy.ClusterHome
	backoff backoff
}

// entry is one cached answer: instances, or the failure of the call.
type entry struct {
	instances []ec2instance.Instance
	err       error
	transient bool
	expires   time.Time
}

var (
	_ approver.Inventory  = (*Source)(nil)
	_ approver.Prefetcher = (*Source)(nil)
)

// New returns a source asking d about instances and home about the
// cluster. It does no I/O; Start runs the calls.
func New(d Describer, home HomeFunc, o Options) *Source {
	o = o.withDefaults()
	return &Source{
		ec2: d, homeFn: home, opts: o,
		limiter: rate.NewLimiter(rate.Limit(o.Rate), o.Burst),
		kick:    make(chan struct{}, 1),
		cache:   map[policy.InstanceKey]entry{},
		queued:  map[policy.InstanceKey]bool{},
	}
}

// OnReady sets the function called, from the source's goroutine, once an
// answer for a queued key is at hand.
func (s *Source) OnReady(f func(policy.InstanceKey)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ready = f
}

// Lookup returns the answer for key when one is at hand: cached, or the
// failure of the last call while the source backs off. Otherwise it queues
// key for the next call and returns false; the function set with OnReady
// is called with key once the answer is at hand.
func (s *Source) Lookup(_ context.Context, key policy.InstanceKey) (policy.InventoryAnswer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ans, ok, outcome := s.lookupLocked(key)
	s.observe(outcome)
	return ans, ok
}

// Prefetch queues key for the next call unless its answer is at hand, as
// Lookup does, without counting a lookup, and reports whether the answer
// is at hand (approver.Prefetcher).
func (s *Source) Prefetch(key policy.InstanceKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok, _ := s.lookupLocked(key)
	return ok
}

// lookupLocked is Lookup with s.mu held; it also returns the outcome to
// observe.
func (s *Source) lookupLocked(key policy.InstanceKey) (policy.InventoryAnswer, bool, string) {
	now := s.opts.Clock.Now()
	if e, ok := s.cache[key]; ok && now.Before(e.expires) {
		return s.answer(key, e), true, "cache_hit"
	}
	if err, ok := s.backoff.failure(now); ok {
		return policy.InventoryAnswer{Key: key, Err: err, Transient: s.backoff.transient}, true, "backoff"
	}
	if !s.queued[key] {
		s.queued[key] = true
		s.queue = append(s.queue, key)
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
	return policy.InventoryAnswer{}, false, "queued"
}

// answer turns a cache entry into an answer; s.mu is held.
func (s *Source) answer(key policy.InstanceKey, e entry) policy.InventoryAnswer {
	ans := policy.InventoryAnswer{Key: key, Instances: e.instances, Err: e.err, Transient: e.transient}
	if s.home != nil && e.err == nil {
		ans.Home = *s.home
	}
	return ans
}

// NeedLeaderElection says Start runs in every replica: it only calls EC2
// for lookups, which only the leader makes.
func (s *Source) NeedLeaderElection() bool { return false }

// Start makes the calls until ctx ends: while lookups are queued, each
// call waits until Window has passed since the last one started (only
// leadingDelay after a quiet window, and no longer once a batch is full),
// then answers a batch of the queue. A call therefore never goes out with
// the few lookups queued while the one before it was answered.
func (s *Source) Start(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.kick:
		}
		for s.queuedCount() > 0 {
			if !s.waitForBatch(ctx) {
				return nil
			}
			s.callOnce(ctx)
		}
	}
}

func (s *Source) queuedCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// waitForBatch waits until Window after the last call's start, at least
// leadingDelay, or less once a full batch is queued; it returns false when
// ctx ends.
func (s *Source) waitForBatch(ctx context.Context) bool {
	wait := max(leadingDelay, time.Until(s.lastCall.Add(s.opts.Window)))
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for !s.fullBatchQueued() {
		select {
		case <-ctx.Done():
			return false
		case <-timer.C:
			return true
		case <-s.kick:
		}
	}
	return true
}

func (s *Source) fullBatchQueued() bool { return s.queuedCount() >= s.opts.BatchSize }

// callOnce answers one batch of the queue or, while the source backs off
// after a failed call, the whole queue with that failure and no call: the
// batches queued behind a throttled call wait for the backoff to end.
func (s *Source) callOnce(ctx context.Context) {
	keys := s.failQueued()
	if len(keys) == 0 {
		keys = s.takeBatch()
		if len(keys) == 0 {
			return
		}
		s.lastCall = time.Now()
		found, err := s.fetch(ctx, keys)
		s.store(keys, found, err)
	}
	s.mu.Lock()
	ready := s.ready
	s.mu.Unlock()
	if ready != nil {
		for _, k := range keys {
			ready(k)
		}
	}
}

// failQueued answers every queued key with the last failure while the
// backoff lasts, and returns the keys it answered.
func (s *Source) failQueued() []policy.InstanceKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Clock.Now()
	err, ok := s.backoff.failure(now)
	if !ok || len(s.queue) == 0 {
		return nil
	}
	keys := s.queue
	s.queue = nil
	if len(s.cache)+len(keys) > s.opts.MaxEntries {
		s.evict(now, len(keys))
	}
	for _, k := range keys {
		delete(s.queued, k)
		s.cache[k] = entry{err: err, transient: s.backoff.transient, expires: s.backoff.until}
		s.observe("backoff")
	}
	return keys
}

// takeBatch removes up to BatchSize keys of one kind (instance IDs, or
// private DNS names) from the queue, in queue order.
func (s *Source) takeBatch() []policy.InstanceKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 {
		return nil
	}
	byID := s.queue[0].ID != ""
	var batch, rest []policy.InstanceKey
	for _, k := range s.queue {
		if (k.ID != "") == byID && len(batch) < s.opts.BatchSize {
			batch = append(batch, k)
		} else {
			rest = append(rest, k)
		}
	}
	s.queue = rest
	return batch
}

// fetch asks EC2 about keys (all of one kind) in one paginated call, after
// the cluster's home is known and the rate limit allows.
func (s *Source) fetch(ctx context.Context, keys []policy.InstanceKey) ([]ec2instance.Instance, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	if err := s.findHome(ctx); err != nil {
		return nil, err
	}
	if err := s.waitRate(ctx); err != nil {
		return nil, err
	}
	filter, values := "instance-id", make([]string, len(keys))
	for i, k := range keys {
		values[i] = k.ID
		if k.ID == "" {
			filter, values[i] = "private-dns-name", k.PrivateDNSName
		}
	}
	found, err := s.ec2.InstancesByFilter(ctx, filter, values)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("%w (lookup timeout %s)", err, s.opts.Timeout)
	}
	s.observeCall("DescribeInstances", len(keys), err)
	return found, err
}

// waitRate waits for the rate limit. A wait that would outlast ctx's
// deadline fails as a timeout (context.DeadlineExceeded), transiently, like
// the call it paces would.
func (s *Source) waitRate(ctx context.Context) error {
	err := s.limiter.Wait(ctx)
	if err == nil {
		return nil
	}
	if ctx.Err() == nil {
		err = fmt.Errorf("%w: %w", context.DeadlineExceeded, err)
	}
	return fmt.Errorf("waiting for the EC2 call rate limit: %w", err)
}

// findHome asks for the cluster's VPC and account once.
func (s *Source) findHome(ctx context.Context) error {
	s.mu.Lock()
	known := s.home != nil
	s.mu.Unlock()
	if known {
		return nil
	}
	if err := s.waitRate(ctx); err != nil {
		return err
	}
	home, err := s.homeFn(ctx)
	s.observeCall("DescribeCluster", 0, err)
	if err != nil {
		return fmt.Errorf("find the cluster's VPC and account: %w", err)
	}
	s.mu.Lock()
	s.home = &home
	s.mu.Unlock()
	return nil
}

// store caches the answer of one call for each of its keys.
func (s *Source) store(keys []policy.InstanceKey, found []ec2instance.Instance, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Clock.Now()
	if len(s.cache)+len(keys) > s.opts.MaxEntries {
		s.evict(now, len(keys))
	}
	if err != nil {
		until := s.backoff.fail(now, err, awsconfig.Transient(err), s.opts.MinBackoff, s.opts.MaxBackoff)
		for _, k := range keys {
			delete(s.queued, k)
			s.cache[k] = entry{err: err, transient: awsconfig.Transient(err), expires: until}
			s.observe("error")
		}
		return
	}
	s.backoff = backoff{}
	for _, k := range keys {
		delete(s.queued, k)
		e := entry{instances: matching(k, found), expires: now.Add(s.opts.NotFoundTTL)}
		outcome := "not_found"
		if len(e.instances) > 0 {
			e.expires, outcome = now.Add(s.opts.TTL), "found"
		}
		s.cache[k] = e
		s.observe(outcome)
	}
}

// matching returns the instances of found that key names.
func matching(key policy.InstanceKey, found []ec2instance.Instance) []ec2instance.Instance {
	var out []ec2instance.Instance
	for _, in := range found {
		if (key.ID != "" && in.ID == key.ID) || (key.ID == "" && equalFoldASCII(in.PrivateDNSName, key.PrivateDNSName)) {
			out = append(out, in)
		}
	}
	return out
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range len(a) {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// evict drops expired entries, then the ones closest to expiry until room
// is left for n more; s.mu is held.
func (s *Source) evict(now time.Time, n int) {
	for k, e := range s.cache {
		if !now.Before(e.expires) {
			delete(s.cache, k)
		}
	}
	for len(s.cache)+n > s.opts.MaxEntries && len(s.cache) > 0 {
		var oldest policy.InstanceKey
		var oldestExpiry time.Time
		for k, e := range s.cache {
			if oldestExpiry.IsZero() || e.expires.Before(oldestExpiry) {
				oldest, oldestExpiry = k, e.expires
			}
		}
		delete(s.cache, oldest)
	}
}

func (s *Source) observe(outcome string) {
	if s.opts.Observe != nil {
		s.opts.Observe(outcome)
	}
}

func (s *Source) observeCall(op string, keys int, err error) {
	if s.opts.ObserveCall != nil {
		s.opts.ObserveCall(op, keys, err)
	}
}

// backoff is the pause after failed calls: it doubles with every failure
// in a row, and ends with the first success.
type backoff struct {
	failures  int
	until     time.Time
	err       error
	transient bool
}

// fail records a failure at now and returns when the pause ends.
func (b *backoff) fail(now time.Time, err error, transient bool, minDelay, maxDelay time.Duration) time.Time {
	delay := minDelay
	for i := 0; i < b.failures && delay < maxDelay; i++ {
		delay *= 2
	}
	b.failures++
	b.until, b.err, b.transient = now.Add(min(delay, maxDelay)), err, transient
	return b.until
}

// failure returns the last failure while the pause lasts.
func (b *backoff) failure(now time.Time) (error, bool) {
	if b.err == nil || !now.Before(b.until) {
		return nil, false
	}
	return fmt.Errorf("%w (no EC2 call until %s, after %d failed calls in a row)", b.err, b.until.Format(time.RFC3339), b.failures), true
}
