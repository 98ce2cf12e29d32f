package controller

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

// NodeNameIndex is the Pod field index on spec.nodeName.
const NodeNameIndex = "spec.nodeName"

// IndexNodeName is the index function of NodeNameIndex.
func IndexNodeName(obj client.Object) []string {
	p, ok := obj.(*corev1.Pod)
	if !ok || p.Spec.NodeName == "" {
		return nil
	}
	return []string{p.Spec.NodeName}
}

// snapshot reads what the planner needs: the group, the Nodes of its
// instances, their pods and the budgets of those pods' namespaces.
func (r *Reconciler) snapshot(ctx context.Context, ro *rolloutv1.NodeGroupRollout, g nodegroup.Group, lookupErr *error) (plan.Snapshot, error) {
	// The planner only reads: the cache's objects are not copied.
	var nodes corev1.NodeList
	if err := r.Client.List(ctx, &nodes, client.UnsafeDisableDeepCopy); err != nil {
		return plan.Snapshot{}, fmt.Errorf("list nodes: %w", err)
	}
	var set nodeSet
	for i := range nodes.Items {
		set.add(plan.NodeInstanceID(&nodes.Items[i]))
	}
	state, err := r.describe(ctx, ro, g, set)
	gone := errors.Is(err, nodegroup.ErrGroupGone) && stopping(ro)
	if err != nil && !gone {
		return plan.Snapshot{}, fmt.Errorf("describe node group %s: %w", ro.Spec.NodeGroup.AutoScalingGroupName, err)
	}
	snap := plan.Snapshot{Now: r.now(), Rollout: ro, Group: state, GroupGone: gone}
	inGroup := map[string]bool{}
	for _, in := range state.Instances {
		inGroup[in.ID] = true
	}
	if err := r.addGroupNodes(ctx, &snap, nodes.Items, inGroup, lookupErr); err != nil {
		return plan.Snapshot{}, err
	}
	if stopping(ro) {
		// An abort releases every node the rollout touched, also those
		// whose instance already left the group.
		snap.Nodes = appendTouched(snap.Nodes, nodes.Items, ro.Name, inGroup)
	}
	return snap, nil
}

// addGroupNodes adds the Nodes of the group's instances to snap, a lookup
// of their pods in the cache's index by Node, and every budget. The planner
// looks up the pods of the Nodes it works on only: gathering every pod of a
// 1,000-node group in each step was most of a step's CPU
// (docs/performance.md). A failed lookup is kept in *lookupErr.
func (r *Reconciler) addGroupNodes(ctx context.Context, snap *plan.Snapshot, nodes []corev1.Node, inGroup map[string]bool, lookupErr *error) error {
	snap.Nodes = make([]corev1.Node, 0, len(inGroup))
	for i := range nodes {
		if n := &nodes[i]; inGroup[plan.NodeInstanceID(n)] {
			snap.Nodes = append(snap.Nodes, *n)
		}
	}
	snap.PodsOn = func(node string) []corev1.Pod {
		var pods corev1.PodList
		if err := r.Client.List(ctx, &pods, client.MatchingFields{NodeNameIndex: node}, client.UnsafeDisableDeepCopy); err != nil {
			*lookupErr = errors.Join(*lookupErr, fmt.Errorf("list pods of node %s: %w", node, err))
		}
		return pods.Items
	}
	var pdbs policyv1.PodDisruptionBudgetList
	if err := r.Client.List(ctx, &pdbs, client.UnsafeDisableDeepCopy); err != nil {
		return fmt.Errorf("list pod disruption budgets: %w", err)
	}
	snap.PDBs = pdbs.Items
	return nil
}

// appendTouched adds the nodes outside the group that carry the rollout's
// marks.
func appendTouched(dst, all []corev1.Node, rollout string, inGroup map[string]bool) []corev1.Node {
	for i := range all {
		n := &all[i]
		if inGroup[plan.NodeInstanceID(n)] {
			continue
		}
		if plan.Touched(n, rollout) {
			dst = append(dst, *n)
		}
	}
	return dst
}

// stopping reports whether the rollout is aborted or being deleted: the
// abort path runs, which also ends once the group is gone.
func stopping(ro *rolloutv1.NodeGroupRollout) bool {
	return ro.Spec.Abort || ro.DeletionTimestamp != nil
}
