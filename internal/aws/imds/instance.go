package imds

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// ErrNoIPv6 is wrapped when an IPv6 node IP was wanted but the primary
// interface has no IPv6 address.
var ErrNoIPv6 = errors.New("primary network interface has no IPv6 address")

// Want selects the optional lookups of Instance.
type Want struct {
	// IPv6 takes the node IP from the primary interface's first IPv6 address
	// instead of local-ipv4 (IPv6 clusters); local-ipv4 is then not read.
	IPv6 bool
	// VPCCIDRs reads the VPC's IPv4 CIDR blocks (cluster DNS fallback rule).
	VPCCIDRs bool
}

// Instance collects the instance status in at most two parallel rounds:
// first the identity document, the MAC and (for IPv4) local-ipv4 together;
// then, only when wanted, the IPv6 addresses and the VPC CIDRs of that MAC
// together. The first failure cancels the lookups still running; the
// returned error joins every failure, each naming its path.
func (c *Client) Instance(ctx context.Context, want Want) (hub.InstanceStatus, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var st hub.InstanceStatus
	var id InstanceIdentity
	errs := &errorSet{cancel: cancel}
	var wg sync.WaitGroup
	wg.Go(func() { fetch(ctx, errs, &id, c.IdentityDocument) })
	wg.Go(func() { fetch(ctx, errs, &st.MAC, c.MAC) })
	if !want.IPv6 {
		wg.Go(func() { fetch(ctx, errs, &st.NodeIP, c.LocalIPv4) })
	}
	wg.Wait()
	if err := errs.err(); err != nil {
		return hub.InstanceStatus{}, err
	}
	st.ID, st.Region, st.Type, st.AvailabilityZone = id.ID, id.Region, id.Type, id.AZ

	var ipv6s []string
	if want.IPv6 {
		wg.Go(func() { fetch(ctx, errs, &ipv6s, forMAC(st.MAC, c.IPv6s)) })
	}
	if want.VPCCIDRs {
		wg.Go(func() { fetch(ctx, errs, &st.VPCIPv4CIDRs, forMAC(st.MAC, c.VPCIPv4CIDRs)) })
	}
	wg.Wait()
	if err := errs.err(); err != nil {
		return hub.InstanceStatus{}, err
	}
	if want.IPv6 {
		if len(ipv6s) == 0 {
			return hub.InstanceStatus{}, fmt.Errorf("imds: MAC %s: %w", st.MAC, ErrNoIPv6)
		}
		st.NodeIP = ipv6s[0]
	}
	return st, nil
}

// errorSet collects the errors of parallel lookups and cancels the others on
// the first one.
type errorSet struct {
	mu     sync.Mutex
	list   []error
	cancel context.CancelFunc
}

// add records err; once one lookup failed, the cancellations it caused in
// the others are not worth reporting.
func (s *errorSet) add(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.list) > 0 && errors.Is(err, context.Canceled) {
		return
	}
	s.list = append(s.list, err)
	s.cancel()
}

func (s *errorSet) err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(s.list...)
}

// fetch runs one lookup, storing its value in dst or its error in errs.
func fetch[T any](ctx context.Context, errs *errorSet, dst *T, lookup func(context.Context) (T, error)) {
	v, err := lookup(ctx)
	if err != nil {
		errs.add(err)
		return
	}
	*dst = v
}

// forMAC binds the MAC argument of a per-interface lookup.
func forMAC[T any](mac string, lookup func(context.Context, string) (T, error)) func(context.Context) (T, error) {
	return func(ctx context.Context) (T, error) { return lookup(ctx, mac) }
}
