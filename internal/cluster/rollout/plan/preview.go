package plan

import (
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
)

// Assumptions of the estimate that no spec field states.
const (
	DefaultAssumedNodeReady = 2 * time.Minute
	DefaultAssumedPodReady  = 30 * time.Second
)

// PreviewOptions are the inputs of Preview beyond the snapshot.
type PreviewOptions struct {
	// Target is the target version number; "" when the rollout will create
	// it (imageID), so that every instance is outdated.
	Target string
	// AssumedNodeReady is how long a new instance takes to be a Ready node;
	// AssumedPodReady how long an evicted pod takes to be Ready elsewhere.
	AssumedNodeReady, AssumedPodReady time.Duration
}

// FindingKind classifies a pod that will slow, stop or be hurt by a drain.
type FindingKind string

// Finding kinds.
const (
	FindingPDBNeverAllows     FindingKind = "PDBNeverAllows"
	FindingPDBAllowsNone      FindingKind = "PDBAllowsNone"
	FindingMultiplePDBs       FindingKind = "MultiplePDBs"
	FindingSingleReplica      FindingKind = "SingleReplica"
	FindingUnreplicated       FindingKind = "Unreplicated"
	FindingToleratesAllTaints FindingKind = "ToleratesAllTaints"
	FindingEmptyDir           FindingKind = "EmptyDir"
	FindingDoNotDisrupt       FindingKind = "DoNotDisrupt"
	FindingStuckTerminating   FindingKind = "StuckTerminating"
	FindingTerminationTooLong FindingKind = "GracePeriodBeyondDrainTimeout"
)

// Finding is one pod's problem.
type Finding struct {
	Pod  string
	Kind FindingKind
	// Blocks is set when the drain will stop on the pod until force or a
	// fix (PodEvictionFailure after the drain timeout).
	Blocks bool
	Detail string
}

// NodeReport is one outdated node in the preview.
type NodeReport struct {
	Name, InstanceID, Zone, Version string
	// Pods is how many pods the drain moves.
	Pods     int
	Drain    time.Duration
	Findings []Finding
}

// Blocks reports whether any finding stops the node's drain.
func (n NodeReport) Blocks() bool {
	for _, f := range n.Findings {
		if f.Blocks {
			return true
		}
	}
	return false
}

// EstimatePart is one term of the estimated duration.
type EstimatePart struct {
	What     string
	Duration time.Duration
}

// Report is the pre-flight plan of a rollout.
type Report struct {
	Group                             string
	Target                            string
	Strategy                          rolloutv1.Strategy
	Order                             rolloutv1.NodeOrder
	Instances, Outdated, Batches      int
	MaxUnavailable, Surge             int32
	Nodes                             []NodeReport
	Estimate                          time.Duration
	EstimateParts                     []EstimatePart
	Warnings                          []string
	DrainTimeout, PostDrainWait       time.Duration
	AssumedNodeReady, AssumedPodReady time.Duration
}

// Preview computes what a rollout would do, per outdated node: the pods it
// moves, the ones that will block or be hurt, how long it should take.
func Preview(s Snapshot, o PreviewOptions) (Report, error) {
	if o.AssumedNodeReady == 0 {
		o.AssumedNodeReady = DefaultAssumedNodeReady
	}
	if o.AssumedPodReady == 0 {
		o.AssumedPodReady = DefaultAssumedPodReady
	}
	w := newWorld(s)
	r := Report{
		Group: w.Group.Name, Strategy: w.set.Strategy, Order: w.set.Order, Instances: len(w.Group.Instances),
		DrainTimeout: w.set.DrainTimeout, PostDrainWait: w.set.PostDrainWait,
		AssumedNodeReady: o.AssumedNodeReady, AssumedPodReady: o.AssumedPodReady,
	}
	lt := w.Group.LaunchTemplate
	if lt == nil {
		return r, fmt.Errorf("auto scaling group %s uses no launch template", w.Group.Name)
	}
	r.Target = fmt.Sprintf("launch template %s version %s", lt.ID, o.Target)
	if o.Target == "" {
		r.Target = fmt.Sprintf("a new version of launch template %s from %s with image %s", lt.ID, lt.Version, s.Rollout.Spec.ImageID)
	}
	mu, err := ResolveMaxUnavailable(w.set.MaxUnavailable, w.Group.Desired)
	if err != nil {
		return r, err
	}
	r.MaxUnavailable = mu
	st := &rolloutv1.NodeGroupRolloutStatus{Target: &rolloutv1.LaunchTemplateVersion{ID: lt.ID, Version: o.Target}}
	outdated := w.outdated(st)
	r.Outdated = len(outdated)
	if w.set.Strategy == rolloutv1.StrategyDefault && len(outdated) > 0 {
		r.Surge = Surge(len(zonesOf(outdated)), mu, len(outdated))
	}
	replicas := replicaCounts(s.Pods)
	for _, in := range outdated {
		r.Nodes = append(r.Nodes, w.nodeReport(in, replicas, o))
	}
	sort.Slice(r.Nodes, func(i, j int) bool { return r.Nodes[i].Name < r.Nodes[j].Name })
	r.Batches = (len(outdated) + int(mu) - 1) / int(mu)
	r.EstimateParts = w.estimate(r, o)
	for _, p := range r.EstimateParts {
		r.Estimate += p.Duration
	}
	r.Warnings = w.warnings(outdated)
	return r, nil
}

// nodeReport examines one outdated node.
func (w *world) nodeReport(in nodegroup.Instance, replicas map[types.UID]int, o PreviewOptions) NodeReport {
	nr := NodeReport{InstanceID: in.ID, Zone: in.Zone, Version: in.Version}
	n, ok := w.nodes[in.ID]
	if !ok {
		return nr
	}
	nr.Name = n.Name
	var grace time.Duration
	rounds := 1
	perBudget := map[string]int{}
	for _, p := range w.podsOn(n.Name) {
		if !mustLeave(p) {
			continue
		}
		nr.Pods++
		fs := w.findings(p, replicas)
		nr.Findings = append(nr.Findings, fs...)
		grace = max(grace, podGrace(p))
		for _, b := range w.budgets.matching(p) {
			perBudget[b.name()]++
			if allowed := int(b.pdb.Status.DisruptionsAllowed); allowed > 0 {
				rounds = max(rounds, (perBudget[b.name()]+allowed-1)/allowed)
			}
		}
	}
	if grace > w.set.DrainTimeout {
		nr.Findings = append(nr.Findings, Finding{Kind: FindingTerminationTooLong, Blocks: true,
			Detail: fmt.Sprintf("a pod's grace period %s exceeds the drain timeout %s", grace, w.set.DrainTimeout)})
	}
	nr.Drain = grace + time.Duration(rounds-1)*max(w.set.EvictionRetryInterval, o.AssumedPodReady)
	if nr.Blocks() || nr.Drain > w.set.DrainTimeout {
		nr.Drain = w.set.DrainTimeout
	}
	return nr
}

// podGrace is the pod's termination grace period (the API default 30 s).
func podGrace(p *corev1.Pod) time.Duration {
	if g := p.Spec.TerminationGracePeriodSeconds; g != nil {
		return time.Duration(*g) * time.Second
	}
	return corev1.DefaultTerminationGracePeriodSeconds * time.Second
}

// findings lists what a drain will meet on pod p.
func (w *world) findings(p *corev1.Pod, replicas map[types.UID]int) []Finding {
	name := p.Namespace + "/" + p.Name
	var out []Finding
	add := func(kind FindingKind, blocks bool, format string, args ...any) {
		out = append(out, Finding{Pod: name, Kind: kind, Blocks: blocks, Detail: fmt.Sprintf(format, args...)})
	}
	if a := doNotDisruptAnnotation(p); a != "" {
		add(FindingDoNotDisrupt, true, "annotation %s: never evicted; only force deletes it", a)
	}
	if late, ok := terminatingFor(p, w.Now); ok && late >= 0 {
		add(FindingStuckTerminating, true, "terminating, %s past its grace period", late.Round(time.Second))
	}
	bs := w.budgets.matching(p)
	switch {
	case len(bs) > 1:
		add(FindingMultiplePDBs, true, "selected by %d budgets (%s): the Eviction API refuses such pods", len(bs), strings.Join(budgetNames(bs), ", "))
	case len(bs) == 1 && bs[0].never():
		add(FindingPDBNeverAllows, true, "%s, and can never allow one", pdbSummary(bs[0]))
	case len(bs) == 1 && bs[0].pdb.Status.DisruptionsAllowed == 0:
		add(FindingPDBAllowsNone, false, "%s now; the drain waits until replicas are Ready elsewhere", pdbSummary(bs[0]))
	}
	ref := metav1.GetControllerOfNoCopy(p)
	switch {
	case ref == nil:
		add(FindingUnreplicated, false, "no controller: the pod is not recreated after eviction")
	case ref.Kind != "DaemonSet" && replicas[ref.UID] == 1 && (len(bs) == 0 || bs[0].pdb.Status.DisruptionsAllowed > 0):
		add(FindingSingleReplica, false, "the only replica of %s %s and no budget keeps it: unavailable until the replacement is Ready", ref.Kind, ref.Name)
	}
	if toleratesAllTaints(p) {
		add(FindingToleratesAllTaints, false, "tolerates every taint: the scheduler may put it back on a cordoned node; it is evicted again each time")
	}
	if vs := emptyDirVolumes(p); len(vs) > 0 {
		add(FindingEmptyDir, false, "emptyDir volumes %s: their data is lost", strings.Join(vs, ", "))
	}
	return out
}

// estimate adds up the expected duration: the surge (Default), then per
// batch the slowest drain, the post-drain wait and, while the group
// back-fills, a new node.
func (w *world) estimate(r Report, o PreviewOptions) []EstimatePart {
	if r.Outdated == 0 {
		return nil
	}
	var parts []EstimatePart
	if r.Strategy == rolloutv1.StrategyDefault {
		parts = append(parts, EstimatePart{fmt.Sprintf("surge of %d nodes Ready", r.Surge), o.AssumedNodeReady})
	}
	drains := make([]time.Duration, len(r.Nodes))
	for i, n := range r.Nodes {
		drains[i] = n.Drain
	}
	// Random order: assume the slowest nodes fall into different batches.
	sort.Slice(drains, func(i, j int) bool { return drains[i] > drains[j] })
	var drainSum time.Duration
	for i := 0; i < r.Batches && i < len(drains); i++ {
		drainSum += drains[i]
	}
	parts = append(parts,
		EstimatePart{fmt.Sprintf("drains, slowest node of each of %d batches", r.Batches), drainSum},
		EstimatePart{fmt.Sprintf("post-drain wait × %d batches", r.Batches), time.Duration(r.Batches) * r.PostDrainWait})
	backfills := r.Batches
	if r.Strategy == rolloutv1.StrategyDefault {
		// The last terminations remove the surge instead of being replaced.
		backfills -= (int(r.Surge) + int(r.MaxUnavailable) - 1) / int(r.MaxUnavailable)
	}
	if backfills > 0 {
		parts = append(parts, EstimatePart{fmt.Sprintf("replacement nodes Ready × %d batches", backfills), time.Duration(backfills) * o.AssumedNodeReady})
	}
	return parts
}

// warnings points at settings that will likely stop the rollout.
func (w *world) warnings(outdated []nodegroup.Instance) []string {
	var out []string
	if len(outdated) == 0 {
		out = append(out, "no node runs an outdated version: nothing to replace")
	}
	if w.set.EKSLabels {
		for _, in := range outdated {
			if n, ok := w.nodes[in.ID]; ok && n.Labels[LabelNodeGroup] != w.set.GroupLabel {
				out = append(out, fmt.Sprintf("node %s lacks %s=%s; new nodes must carry it and the %s/%s labels, or the rollout fails with NodeCreationFailure (self-managed groups: set spec.newNodes.eksLabels false)",
					n.Name, LabelNodeGroup, w.set.GroupLabel, LabelSourceLaunchTemplateID, LabelSourceLaunchTemplateVersion))
				break
			}
		}
	}
	return out
}
