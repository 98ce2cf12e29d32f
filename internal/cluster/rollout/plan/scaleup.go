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

// scaleUp adds the surge, waits for the new capacity, then cordons the
// outdated nodes.
func (w *world) scaleUp(d *Decision) {
	st := &d.Status
	outdated := w.outdated(st)
	zones := zonesOf(outdated)
	if st.Surge == 0 {
		st.Surge = Surge(len(zones), st.MaxUnavailable, len(outdated))
	}
	desired := st.Original.DesiredCapacity + st.Surge
	maxSize := max(st.Original.MaxSize, desired)
	if w.Group.Desired < desired || w.Group.MaxSize < maxSize {
		d.Actions = append(d.Actions, SetSizes{MinSize: w.Group.MinSize, MaxSize: max(maxSize, w.Group.MaxSize), Desired: max(desired, w.Group.Desired)})
		if st.WaitingSince == nil {
			st.WaitingSince = &w.now
		}
		st.Message = fmt.Sprintf("raising desired capacity from %d to %d (surge %d)", w.Group.Desired, desired, st.Surge)
		return
	}
	if !w.waitForCapacity(d, zones, fmt.Sprintf("%d new nodes", st.Surge)) {
		return
	}
	for _, n := range w.outdatedNodes(outdated) {
		if !cordoned(n.Node) {
			d.Actions = append(d.Actions, Cordon{Node: n.Name})
		}
	}
	if len(d.Actions) > 0 {
		st.Message = fmt.Sprintf("new capacity ready; cordoning %d outdated nodes", len(d.Actions))
		return
	}
	st.Phase = rolloutv1.PhaseUpgrading
	w.event(d, false, "ScaledUp", fmt.Sprintf("%d new nodes Ready in zones %v; outdated nodes cordoned", st.Surge, zones))
	w.step(d)
}
