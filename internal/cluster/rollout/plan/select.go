package plan

import (
	"hash/fnv"
	"math/rand/v2"
	"sort"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
)

// order sorts batch candidates in the rollout's node order. Random is a
// shuffle seeded by the rollout's UID and the batch number, so that a
// planning step repeated after a restart picks the same nodes.
func (w *world) order(cands []nodegroup.Instance, batch int32) []nodegroup.Instance {
	out := append([]nodegroup.Instance(nil), cands...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	created := func(in nodegroup.Instance) int64 {
		if n, ok := w.nodes[in.ID]; ok {
			return n.CreationTimestamp.UnixNano()
		}
		return 0 // no Node: oldest
	}
	switch w.set.Order {
	case rolloutv1.OrderOldest:
		sort.SliceStable(out, func(i, j int) bool { return created(out[i]) < created(out[j]) })
	case rolloutv1.OrderNewest:
		sort.SliceStable(out, func(i, j int) bool { return created(out[i]) > created(out[j]) })
	case rolloutv1.OrderName:
		name := func(in nodegroup.Instance) string {
			if n, ok := w.nodes[in.ID]; ok {
				return n.Name
			}
			return in.ID
		}
		sort.SliceStable(out, func(i, j int) bool { return name(out[i]) < name(out[j]) })
	default:
		h := fnv.New64a()
		h.Write([]byte(w.Rollout.UID))
		r := rand.New(rand.NewPCG(h.Sum64(), uint64(batch)))
		r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	}
	return out
}
