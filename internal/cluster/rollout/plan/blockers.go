package plan

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
)

// MaxBlockersPerNode bounds the blockers kept in a node's status.
const MaxBlockersPerNode = 20

// blockers returns a draining node's blockers: pods that will not be
// evicted (do-not-disrupt), pods still terminating, and the refusals of
// the last eviction round for pods that are still to be evicted.
func (w *world) blockers(p *rolloutv1.NodeProgress, evict, doNotEvict, terminating []*corev1.Pod) []rolloutv1.PodBlocker {
	prev := map[string]rolloutv1.PodBlocker{}
	for _, b := range p.Blockers {
		prev[b.Pod+"|"+string(b.Reason)] = b
	}
	var out []rolloutv1.PodBlocker
	add := func(pod *corev1.Pod, reason rolloutv1.BlockerReason, msg string) {
		b := rolloutv1.PodBlocker{Pod: pod.Namespace + "/" + pod.Name, Reason: reason, Message: msg, Since: w.now}
		if old, ok := prev[b.Pod+"|"+string(reason)]; ok {
			b.Since = old.Since
		}
		b.PodDisruptionBudgets = budgetNames(w.budgets.matching(pod))
		out = append(out, b)
	}
	for _, pod := range doNotEvict {
		add(pod, rolloutv1.BlockedByDoNotDisrupt, "annotation "+doNotDisruptAnnotation(pod))
	}
	for _, pod := range terminating {
		late, _ := terminatingFor(pod, w.Now)
		msg := fmt.Sprintf("terminating; grace period ends in %s", (-late).Round(time.Second))
		if late >= 0 {
			msg = fmt.Sprintf("terminating; grace period ended %s ago", late.Round(time.Second))
		}
		if len(pod.Finalizers) > 0 {
			msg += "; finalizers " + strings.Join(pod.Finalizers, ", ")
		}
		add(pod, rolloutv1.BlockedTerminating, msg)
	}
	still := map[string]bool{}
	for _, pod := range evict {
		still[pod.Namespace+"/"+pod.Name] = true
	}
	for _, b := range p.Blockers {
		if isRefusal(b.Reason) && still[b.Pod] {
			out = append(out, b)
		}
	}
	return capBlockers(out)
}

// isRefusal reports whether a blocker came from the Eviction API.
func isRefusal(r rolloutv1.BlockerReason) bool {
	return r == rolloutv1.BlockedByPDB || r == rolloutv1.BlockedByMultiplePDBs || r == rolloutv1.BlockedByError
}

func capBlockers(bs []rolloutv1.PodBlocker) []rolloutv1.PodBlocker {
	if len(bs) > MaxBlockersPerNode {
		return bs[:MaxBlockersPerNode]
	}
	return bs
}

// BlockerText renders a blocker for messages and Events.
func BlockerText(b rolloutv1.PodBlocker) string {
	var s strings.Builder
	fmt.Fprintf(&s, "pod %s", b.Pod)
	switch b.Reason {
	case rolloutv1.BlockedByPDB, rolloutv1.BlockedByMultiplePDBs:
		fmt.Fprintf(&s, " blocked by PodDisruptionBudget %s", strings.Join(b.PodDisruptionBudgets, ", "))
	default:
		fmt.Fprintf(&s, " blocked (%s)", b.Reason)
		if len(b.PodDisruptionBudgets) > 0 {
			fmt.Fprintf(&s, ", budgets %s", strings.Join(b.PodDisruptionBudgets, ", "))
		}
	}
	if b.Message != "" {
		fmt.Fprintf(&s, ": %s", b.Message)
	}
	return s.String()
}

// evictionFailure is the PodEvictionFailure message: the node and every
// blocker, plus how many pods have not left without a named reason.
func evictionFailure(p *rolloutv1.NodeProgress, timeout time.Duration, remaining []string) string {
	var s strings.Builder
	fmt.Fprintf(&s, "node %s (%s) did not drain within %s; %d pods remain", firstNonEmpty(p.Name, p.InstanceID), p.InstanceID, timeout, len(remaining))
	for _, b := range p.Blockers {
		s.WriteString("; ")
		s.WriteString(BlockerText(b))
	}
	if len(p.Blockers) > 0 {
		s.WriteString(". Fix the budgets or set spec.force to delete the pods")
		return s.String()
	}
	// Nothing refused them: evicted, they came back (they tolerate the
	// cordon), or they are still terminating. Name them.
	if len(remaining) > 0 {
		fmt.Fprintf(&s, ": %s. Set spec.force to delete them (pods that keep coming back then go with the node)", nameSome(remaining, maxNamedPods))
	}
	return s.String()
}

// maxNamedPods bounds how many pods a message names.
const maxNamedPods = 10

// nameSome joins the first limit names, and says how many more there are.
func nameSome(names []string, limit int) string {
	if len(names) <= limit {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:limit], ", "), len(names)-limit)
}

// EvictionResult is the Eviction API's answer for one pod.
type EvictionResult struct {
	Node string
	Pod  PodRef
	// Reason is empty when the pod was evicted (or is gone).
	Reason  rolloutv1.BlockerReason
	Message string
	// PodDisruptionBudgets are the budgets the refusal involves.
	PodDisruptionBudgets []string
	// NotSent: the request was not made, its budget having refused
	// another pod in the same step; Reason and Message are that answer.
	NotSent bool
}

// Results are what carrying out a Decision's actions reported back.
type Results struct {
	// Target is the launch-template version a ResolveTarget or
	// CreateTarget produced.
	Target    string
	Evictions []EvictionResult
}

// Record merges results into a status after the actions ran, and returns
// an Event for each pod that started blocking, so that blocking pods and
// budgets are named while they block.
func Record(st *rolloutv1.NodeGroupRolloutStatus, res Results, now time.Time) []Event {
	if res.Target != "" && st.Target == nil && st.Original != nil {
		lt := st.Original.LaunchTemplate
		st.Target = &rolloutv1.LaunchTemplateVersion{ID: lt.ID, Name: lt.Name, Version: res.Target}
	}
	byNode := map[string][]EvictionResult{}
	for _, r := range res.Evictions {
		byNode[r.Node] = append(byNode[r.Node], r)
	}
	var events []Event
	for i := range st.Nodes {
		p := &st.Nodes[i]
		rs, ok := byNode[p.Name]
		if !ok || p.Step != rolloutv1.StepDraining {
			continue
		}
		var blocked []rolloutv1.PodBlocker
		old := map[string]rolloutv1.PodBlocker{}
		tried := map[string]bool{}
		for _, b := range p.Blockers {
			old[b.Pod] = b
		}
		for _, r := range rs {
			tried[r.Pod.String()] = true
			if r.NotSent && p.Evictions > 0 {
				p.Evictions-- // counted when asked for; no request was made
			}
			if r.Reason == "" {
				continue
			}
			b := rolloutv1.PodBlocker{Pod: r.Pod.String(), Reason: r.Reason, Message: r.Message, PodDisruptionBudgets: r.PodDisruptionBudgets, Since: metav1.NewTime(now)}
			if prev, ok := old[b.Pod]; ok && prev.Reason == b.Reason {
				b.Since = prev.Since
			} else {
				events = append(events, Event{Warning: true, Reason: "PodEvictionBlocked", Message: fmt.Sprintf("node %s: %s", p.Name, BlockerText(b))})
			}
			blocked = append(blocked, b)
		}
		for _, b := range p.Blockers {
			if !tried[b.Pod] {
				blocked = append(blocked, b)
			}
		}
		p.Blockers = capBlockers(blocked)
	}
	return events
}
