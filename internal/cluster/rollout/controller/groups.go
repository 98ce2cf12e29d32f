package controller

import (
	"context"
	"hash/fnv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
)

// GroupOpener returns the node group a rollout names.
type GroupOpener interface {
	Open(ctx context.Context, ref rolloutv1.NodeGroupReference) (nodegroup.Group, error)
}

// groupCache keeps the last description of each rollout's group for a
// short while, so that a burst of Pod and Node events does not turn into a
// burst of Auto Scaling calls. An action on the group drops it; a change of
// the cluster's set of Nodes (an instance entered service or left) makes
// it stale: each entry remembers the set it was described with. Entries
// are kept by rollout name, and each also remembers the object (UID) and
// the group it described, so that a rollout deleted and created again
// under the same name, for another group, never reads the old group's.
type groupCache struct {
	mu      sync.Mutex
	entries map[string]cachedGroup
}

type cachedGroup struct {
	state nodegroup.State
	at    time.Time
	nodes nodeSet
	// uid and group are the rollout object and the group described.
	uid   types.UID
	group rolloutv1.NodeGroupReference
}

// nodeSet fingerprints the cluster's Nodes by instance: their number and
// the sum of a hash of each Node's instance ID. Nodes joining or leaving
// change it; their status heartbeats do not.
type nodeSet struct {
	count int
	sum   uint64
}

func (s *nodeSet) add(instanceID string) {
	h := fnv.New64a()
	h.Write([]byte(instanceID))
	s.count++
	s.sum += h.Sum64()
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

// describe returns the group of ro, g, from the cache while it is fresh:
// described for this very object and group, younger than the refresh
// interval and with the same set of Nodes.
func (r *Reconciler) describe(ctx context.Context, ro *rolloutv1.NodeGroupRollout, g nodegroup.Group, nodes nodeSet) (nodegroup.State, error) {
	c := r.groups()
	now := r.now()
	c.mu.Lock()
	e, ok := c.entries[ro.Name]
	c.mu.Unlock()
	if ok && e.uid == ro.UID && e.group == ro.Spec.NodeGroup && now.Sub(e.at) < r.refresh() && e.nodes == nodes {
		return e.state, nil
	}
	st, err := g.Describe(ctx)
	if err != nil {
		return nodegroup.State{}, err
	}
	c.mu.Lock()
	c.entries[ro.Name] = cachedGroup{state: st, at: now, nodes: nodes, uid: ro.UID, group: ro.Spec.NodeGroup}
	c.mu.Unlock()
	return st, nil
}

// forget drops one rollout's cached group.
func (c *groupCache) forget(rollout string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, rollout)
}
