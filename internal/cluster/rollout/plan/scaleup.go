package plan

import (
	"fmt"
	"slices"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
)

// Surge is how many nodes the Default strategy adds first: the larger of
// twice the number of zones and maxUnavailable, as managed node groups
// do, but no more than the number of outdated nodes (more would only be
// removed again undrained), and at least one per zone.
func Surge(zones int, maxUnavailable int32, outdated int) int32 {
	s := max(int32(2*zones), maxUnavailable)
	return min(s, int32(max(outdated, zones)))
}

// zonesOf returns the sorted zones of instances.
func zonesOf(instances []nodegroup.Instance) []string {
	var out []string
	for _, in := range instances {
		if !slices.Contains(out, in.Zone) {
			out = append(out, in.Zone)
		}
	}
	slices.Sort(out)
	return out
}

// scaleUp adds the surge and waits for the new capacity while it taints
// the outdated nodes; then the upgrade starts, its first batch and the
// cordons of the other outdated nodes together (cordonOutdated).
func (w *world) scaleUp(d *Decision) {
	st := &d.Status
	if !w.launchesTarget(d) {
		return
	}
	outdated := w.outdated(st)
	zones := zonesOf(outdated)
	if st.Surge == 0 {
		st.Surge = Surge(len(zones), st.MaxUnavailable, len(outdated))
	}
	desired := st.Original.DesiredCapacity + st.Surge
	maxSize := max(st.Original.MaxSize, desired)
	tainting := w.markOutdated(d, outdated)
	if w.Group.Desired < desired || w.Group.MaxSize < maxSize {
		d.Actions = append(d.Actions, SetSizes{MinSize: w.Group.MinSize, MaxSize: max(maxSize, w.Group.MaxSize), Desired: max(desired, w.Group.Desired)})
		if st.WaitingSince == nil {
			st.WaitingSince = &w.now
		}
		st.Message = fmt.Sprintf("raising desired capacity from %d to %d (surge %d); tainting %d outdated nodes", w.Group.Desired, desired, st.Surge, tainting)
		return
	}
	if !w.waitForCapacity(d, zones, fmt.Sprintf("%d new nodes", st.Surge)) || tainting > 0 {
		if tainting > 0 {
			st.Message += fmt.Sprintf("; tainting %d outdated nodes", tainting)
		}
		return
	}
	st.Phase = rolloutv1.PhaseUpgrading
	w.event(d, false, "ScaledUp", fmt.Sprintf("%d new nodes Ready in zones %v; cordoning the outdated nodes", st.Surge, zones))
	w.step(d)
}

// cordonOutdated cordons the outdated nodes not cordoned yet (after the
// current batch's, which its drain cordons first), as managed node groups
// do once the new capacity is up. The Default strategy does it from its
// first batch on, in the steps that send no evictions of cordoned nodes:
// those evictions are the batch's critical path, the cordons are on none,
// and sent together (a 1,000-node group's first batch) they slowed the
// evictions to twice the API server's floor (docs/performance.md). A
// step that picks a batch of nodes not cordoned yet (the first) cordons
// them, evicts after each cordon and cordons the others beside: left for
// later, the others received more of the first batch's displaced pods,
// each evicted a second time in a later batch (36 rather than 13 in a
// 500-node run).
func (w *world) cordonOutdated(d *Decision) {
	if w.set.Strategy == rolloutv1.StrategyMinimal {
		return
	}
	asked := map[string]bool{}
	for _, a := range d.Actions {
		switch a := a.(type) {
		case Evict:
			if !a.AfterCordon {
				return
			}
		case Delete:
			return
		case Cordon:
			asked[a.Node] = true
		}
	}
	for _, n := range w.outdatedNodes(w.outdated(&d.Status)) {
		if !cordoned(n.Node) && !asked[n.Name] {
			d.Actions = append(d.Actions, Cordon{Node: n.Name})
		}
	}
}
