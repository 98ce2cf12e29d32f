package plan

import (
	"fmt"
	"sort"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
)

// initialize records the group, settles the target version and points
// the group at it. With the Default strategy the rollout then scales up at
// once, tainting the outdated nodes meanwhile (scaleUp); with Minimal the
// taints come first: the first batch follows right away.
func (w *world) initialize(d *Decision) {
	st := &d.Status
	lt := w.Group.LaunchTemplate
	if !w.recordOriginal(d) {
		return
	}
	if st.Target == nil {
		w.settleTarget(d)
		return
	}
	if st.Target.ID != lt.ID {
		w.fail(d, rolloutv1.InvalidSpec, fmt.Sprintf("the group now uses launch template %s, not %s", lt.ID, st.Target.ID))
		return
	}
	outdated := w.outdated(st)
	if st.NodesTotal == 0 {
		st.NodesTotal = int32(len(outdated))
	}
	if lt.Version != st.Target.Version {
		d.Actions = append(d.Actions, SetLaunchTemplate{Template: nodegroup.LaunchTemplate{ID: lt.ID, Version: st.Target.Version}})
	}
	next := rolloutv1.PhaseScalingUp
	if w.set.Strategy == rolloutv1.StrategyMinimal || len(outdated) == 0 {
		next = rolloutv1.PhaseUpgrading
		if w.markOutdated(d, outdated) > 0 {
			st.Message = fmt.Sprintf("pointing the group at launch template %s version %s and tainting %d outdated nodes %s:PreferNoSchedule",
				lt.ID, st.Target.Version, len(outdated), TaintKey)
			return
		}
	}
	st.Phase = next
	w.event(d, false, "Initialized", fmt.Sprintf("target launch template %s version %s; %d of %d instances outdated; %d nodes at a time",
		lt.ID, st.Target.Version, len(outdated), len(w.Group.Instances), st.MaxUnavailable))
	w.step(d)
}

// recordOriginal records the group's settings and resolves maxUnavailable
// once; it reports false when the rollout failed.
func (w *world) recordOriginal(d *Decision) bool {
	st := &d.Status
	lt := w.Group.LaunchTemplate
	if st.Original == nil {
		st.Original = &rolloutv1.GroupSettings{
			MinSize: w.Group.MinSize, MaxSize: w.Group.MaxSize, DesiredCapacity: w.Group.Desired,
			LaunchTemplate: rolloutv1.LaunchTemplateVersion{ID: lt.ID, Name: lt.Name, Version: lt.Version},
		}
	}
	if st.MaxUnavailable == 0 {
		n, err := ResolveMaxUnavailable(w.set.MaxUnavailable, st.Original.DesiredCapacity)
		if err != nil {
			w.fail(d, rolloutv1.InvalidSpec, err.Error())
			return false
		}
		st.MaxUnavailable = n
	}
	return true
}

// markOutdated taints the outdated nodes not tainted yet and returns how
// many it asked for.
func (w *world) markOutdated(d *Decision, outdated []nodegroup.Instance) int {
	n := 0
	for _, o := range w.outdatedNodes(outdated) {
		if !hasTaint(o.Node, w.name) {
			d.Actions = append(d.Actions, MarkOld{Node: o.Name})
			n++
		}
	}
	return n
}

// settleTarget fixes the target version: a number is taken as is, a
// symbolic one is resolved, an image ID makes a new version.
func (w *world) settleTarget(d *Decision) {
	st := &d.Status
	lt := w.Group.LaunchTemplate
	spec := w.Rollout.Spec
	switch {
	case spec.ImageID != "":
		d.Actions = append(d.Actions, CreateTarget{
			TemplateID: lt.ID, SourceVersion: st.Original.LaunchTemplate.Version, ImageID: spec.ImageID,
			ClientToken: "nodeboot-rollout-" + string(w.Rollout.UID),
		})
		st.Message = fmt.Sprintf("creating launch template %s version from %s with image %s", lt.ID, st.Original.LaunchTemplate.Version, spec.ImageID)
	default:
		v := spec.LaunchTemplateVersion
		if v == "" {
			v = st.Original.LaunchTemplate.Version
		}
		if nodegroup.IsVersionNumber(v) {
			st.Target = &rolloutv1.LaunchTemplateVersion{ID: lt.ID, Name: lt.Name, Version: v}
			w.initialize(d)
			return
		}
		d.Actions = append(d.Actions, ResolveTarget{TemplateID: lt.ID, Version: v})
		st.Message = fmt.Sprintf("resolving launch template %s version %s", lt.ID, v)
	}
}

// outdatedNodes returns the Nodes of outdated instances, by name.
func (w *world) outdatedNodes(outdated []nodegroup.Instance) []*nodeOf {
	var out []*nodeOf
	for _, in := range outdated {
		if n, ok := w.nodes[in.ID]; ok {
			out = append(out, &nodeOf{Node: n, instance: in})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// launchesTarget reports whether the group launches the target version,
// or is pointed at it in this step. If not, something else pointed it
// elsewhere (or the status names a target the group never had): every
// node it launches would be outdated too and replaced in turn, without
// end, so the rollout fails. Retrying (a spec change) points the group
// back at the target (retry).
func (w *world) launchesTarget(d *Decision) bool {
	st := &d.Status
	want := nodegroup.LaunchTemplate{ID: st.Target.ID, Version: st.Target.Version}
	lt := w.Group.LaunchTemplate
	if lt.ID == want.ID && lt.Version == want.Version {
		return true
	}
	for _, a := range d.Actions {
		if s, ok := a.(SetLaunchTemplate); ok && s.Template.ID == want.ID && s.Template.Version == want.Version {
			return true
		}
	}
	w.fail(d, rolloutv1.LaunchTemplateError, fmt.Sprintf("the group launches launch template %s version %s, not the target %s version %s: "+
		"something else changed it; change the spec (e.g. set spec.force) to point it back at the target and go on, or abort", lt.ID, lt.Version, want.ID, want.Version))
	return false
}
