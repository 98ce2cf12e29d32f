package controller

import (
	"context"
	"sync"
	"time"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
)

// GroupOpener returns the node group a rollout names.
type GroupOpener interface {
	Open(ctx context.Context, ref rolloutv1.NodeGroupReference) (nodegroup.Group, error)
}

// groupCache keeps the last description of each rollout's group for a
// short while, so that a burst of Pod and Node events does not turn into a
// burst of Auto Scaling calls. Anything that may have changed the group
// (an action, a Node appearing or leaving) drops it.
type groupCache struct {
	mu      sync.Mutex
	entries map[string]cachedGroup
}

type cachedGroup struct {
	state nodegroup.State
	at    time.Time
}

func (r *Reconciler) groups() *groupCache {
	if r.cache == nil {
		r.cache = &groupCache{entries: map[string]cachedGroup{}}
	}
	return r.cache
}

func (r *Reconciler) refresh() time.Duration {
	if r.GroupRefresh > 0 {
		return r.GroupRefresh
	}
	return DefaultGroupRefresh
}

// describe returns the group's state, from the cache when fresh.
func (r *Reconciler) describe(ctx context.Context, rollout string, g nodegroup.Group) (nodegroup.State, error) {
	c := r.groups()
	now := r.now()
	c.mu.Lock()
	e, ok := c.entries[rollout]
	c.mu.Unlock()
	if ok && now.Sub(e.at) < r.refresh() {
		return e.state, nil
	}
	st, err := g.Describe(ctx)
	if err != nil {
		return nodegroup.State{}, err
	}
	c.mu.Lock()
	c.entries[rollout] = cachedGroup{state: st, at: now}
	c.mu.Unlock()
	return st, nil
}

// forget drops one rollout's cached group.
func (c *groupCache) forget(rollout string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, rollout)
}

// forgetAll drops every cached group.
func (c *groupCache) forgetAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.entries)
}
