package plan

import (
	"fmt"
	"slices"
	"strings"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
)

// maxGapItems bounds how many missing pieces a gap message lists.
const maxGapItems = 5

// expectedLabels are the labels a node of the target version must carry.
func (w *world) expectedLabels(target *rolloutv1.LaunchTemplateVersion) map[string]string {
	want := map[string]string{}
	if w.set.EKSLabels {
		want[LabelNodeGroup] = w.set.GroupLabel
		want[LabelSourceLaunchTemplateID] = target.ID
		want[LabelSourceLaunchTemplateVersion] = target.Version
	}
	for k, v := range w.set.Labels {
		want[k] = v
	}
	return want
}

// capacityGap says why the new capacity is not there yet, or "" when it
// is: every instance the group wants is InService, every instance of the
// target version is a Ready Node with the expected labels, and each zone
// of zones has at least one such node.
func (w *world) capacityGap(st *rolloutv1.NodeGroupRolloutStatus, zones []string) string {
	var gaps []string
	inService := 0
	for _, in := range w.Group.Instances {
		if in.InService() {
			inService++
		}
	}
	if int32(inService) < w.Group.Desired {
		gaps = append(gaps, fmt.Sprintf("%d of %d instances in service", inService, w.Group.Desired))
	}
	want := w.expectedLabels(st.Target)
	readyZones := map[string]bool{}
	for _, in := range w.Group.Instances {
		if !in.InService() || in.Version != st.Target.Version {
			continue
		}
		n, ok := w.nodes[in.ID]
		switch {
		case !ok:
			gaps = append(gaps, fmt.Sprintf("instance %s (%s) has no Node", in.ID, in.Zone))
		case !NodeReady(n):
			gaps = append(gaps, fmt.Sprintf("node %s is not Ready", n.Name))
		default:
			if missing := missingLabels(n.Labels, want); missing != "" {
				gaps = append(gaps, fmt.Sprintf("node %s lacks %s", n.Name, missing))
				continue
			}
			readyZones[in.Zone] = true
		}
	}
	for _, z := range zones {
		if !readyZones[z] {
			gaps = append(gaps, "no new Ready node in zone "+z)
		}
	}
	if len(gaps) > maxGapItems {
		gaps = append(gaps[:maxGapItems], fmt.Sprintf("and %d more", len(gaps)-maxGapItems))
	}
	return strings.Join(gaps, "; ")
}

// missingLabels lists the wanted labels a node lacks, sorted.
func missingLabels(have, want map[string]string) string {
	var missing []string
	for k, v := range want {
		if have[k] != v {
			missing = append(missing, k+"="+v)
		}
	}
	slices.Sort(missing)
	return strings.Join(missing, ", ")
}

// waitForCapacity applies the capacity gate: it returns true when the
// capacity is there; otherwise it starts or continues the wait and fails
// with NodeCreationFailure after the timeout.
func (w *world) waitForCapacity(d *Decision, zones []string, what string) bool {
	st := &d.Status
	gap := w.capacityGap(st, zones)
	if gap == "" {
		st.WaitingSince = nil
		return true
	}
	if st.WaitingSince == nil {
		st.WaitingSince = &w.now
	}
	deadline := st.WaitingSince.Add(w.set.NodeCreationTimeout)
	if !w.Now.Before(deadline) {
		w.fail(d, rolloutv1.NodeCreationFailure, fmt.Sprintf("%s not ready after %s: %s", what, w.set.NodeCreationTimeout, gap))
		return false
	}
	st.Message = fmt.Sprintf("waiting for %s: %s", what, gap)
	requeue(d, w.until(deadline))
	return false
}
