// Package ec2inventory answers the approver's inventory questions from the
// EC2 API (ec2:DescribeInstances through internal/aws/ec2), with a bounded
// time-to-live cache of the answers.
package ec2inventory

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

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
	// DefaultTimeout bounds one lookup, the SDK's retries included, so
	// that a hanging endpoint holds a reconcile worker for seconds only.
	DefaultTimeout = 10 * time.Second
	// DefaultNotFoundTTL is how long an answer without instances is
	// reused: long enough that a node flooding CSRs for an instance EC2
	// does not know costs one call per period, short enough for EC2's
	// eventual consistency after a launch.
	DefaultNotFoundTTL = 10 * time.Second
	// DefaultMaxEntries bounds the cache; one entry per node.
	DefaultMaxEntries = 10000
)

// Describer is the part of the EC2 client the source calls.
type Describer interface {
	InstanceByID(ctx context.Context, id string) (ec2instance.Instance, error)
	InstancesByPrivateDNSName(ctx context.Context, name string) ([]ec2instance.Instance, error)
}

// Options tunes New; the zero value uses the defaults.
type Options struct {
	// TTL is how long an answer that found instances is reused; negative
	// disables it. Failed lookups are never cached.
	TTL time.Duration
	// NotFoundTTL is how long an answer without instances is reused;
	// negative disables it. 0 means DefaultNotFoundTTL, or TTL when that
	// is shorter (or disabled).
	NotFoundTTL time.Duration
	// Timeout bounds one lookup.
	Timeout time.Duration
	// MaxEntries bounds the number of cached answers.
	MaxEntries int
	// Clock tells the time; nil means the real clock.
	Clock clock.PassiveClock
	// Observe, when not nil, is called with the outcome of every lookup:
	// "cache_hit", "found", "not_found" or "error".
	Observe func(outcome string)
}

// Source is an approver.Inventory backed by EC2. It is safe for concurrent
// use.
type Source struct {
	ec2  Describer
	opts Options

	mu    sync.Mutex
	cache map[policy.InstanceKey]entry
}

type entry struct {
	instances []ec2instance.Instance
	expires   time.Time
}

var _ approver.Inventory = (*Source)(nil)

// New returns a source asking d. It does no I/O.
func New(d Describer, o Options) *Source {
	if o.TTL == 0 {
		o.TTL = DefaultTTL
	}
	if o.NotFoundTTL == 0 {
		// Never longer than TTL: a shorter or disabled cache is meant
		// for absences too.
		o.NotFoundTTL = min(DefaultNotFoundTTL, o.TTL)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	return &Source{ec2: d, opts: o, cache: map[policy.InstanceKey]entry{}}
}

// Lookup returns what EC2 knows about key: from the cache while a previous
// answer is fresh, otherwise from one bounded DescribeInstances lookup.
func (s *Source) Lookup(ctx context.Context, key policy.InstanceKey) policy.InventoryAnswer {
	if instances, ok := s.cached(key); ok {
		s.observe("cache_hit")
		return policy.InventoryAnswer{Key: key, Instances: instances}
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	instances, err := s.describe(ctx, key)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("%w (lookup timeout %s)", err, s.opts.Timeout)
	}
	switch {
	case err != nil:
		s.observe("error")
		return policy.InventoryAnswer{Key: key, Err: err, Transient: awsconfig.Transient(err)}
	case len(instances) == 0:
		s.observe("not_found")
		s.store(key, nil, s.opts.NotFoundTTL)
	default:
		s.observe("found")
		s.store(key, instances, s.opts.TTL)
	}
	return policy.InventoryAnswer{Key: key, Instances: instances}
}

// describe asks EC2; an unknown instance ID is an answer without
// instances, not an error.
func (s *Source) describe(ctx context.Context, key policy.InstanceKey) ([]ec2instance.Instance, error) {
	if key.ID == "" {
		return s.ec2.InstancesByPrivateDNSName(ctx, key.PrivateDNSName)
	}
	in, err := s.ec2.InstanceByID(ctx, key.ID)
	switch {
	case errors.Is(err, ec2.ErrInstanceNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return []ec2instance.Instance{in}, nil
}

func (s *Source) cached(key policy.InstanceKey) ([]ec2instance.Instance, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.cache[key]
	if !ok {
		return nil, false
	}
	if !s.opts.Clock.Now().Before(e.expires) {
		delete(s.cache, key)
		return nil, false
	}
	return e.instances, true
}

func (s *Source) store(key policy.InstanceKey, instances []ec2instance.Instance, ttl time.Duration) {
	if ttl < 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Clock.Now()
	if len(s.cache) >= s.opts.MaxEntries {
		s.evict(now)
	}
	s.cache[key] = entry{instances: instances, expires: now.Add(ttl)}
}

// evict drops expired entries, or the one closest to expiry when none is;
// s.mu is held.
func (s *Source) evict(now time.Time) {
	var oldest policy.InstanceKey
	var oldestExpiry time.Time
	for k, e := range s.cache {
		if !now.Before(e.expires) {
			delete(s.cache, k)
			continue
		}
		if oldestExpiry.IsZero() || e.expires.Before(oldestExpiry) {
			oldest, oldestExpiry = k, e.expires
		}
	}
	if len(s.cache) >= s.opts.MaxEntries {
		delete(s.cache, oldest)
	}
}

func (s *Source) observe(outcome string) {
	if s.opts.Observe != nil {
		s.opts.Observe(outcome)
	}
}
