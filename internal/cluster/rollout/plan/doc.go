// Package plan is the rollout's brain: a pure function from a Snapshot (the
// NodeGroupRollout, the node group as Auto Scaling reports it, the group's
// Nodes, their Pods and the PodDisruptionBudgets, and the time) to a
// Decision (the next status, the actions to take and the Events to record).
// It never calls anything; the controller persists the status first, then
// carries out the actions, all of which are idempotent, so a controller
// stopped at any moment resumes from the status alone.
//
// The algorithm is the EKS managed-node-group update:
//
//  1. Initializing: record the group's sizes and launch-template version,
//     resolve (or, for imageID, create) the target version, point the group
//     at it, and taint every outdated node PreferNoSchedule so that pods
//     moved from now on prefer new nodes.
//  2. ScalingUp (Default strategy): raise desired (and max) capacity by the
//     surge, max(2 × zones, maxUnavailable) capped at the number of
//     outdated nodes; wait until every new instance is a Ready Node with
//     the expected labels and every zone with outdated nodes has one
//     (NodeCreationFailure after timeouts.nodeCreation); then cordon the
//     outdated nodes and label them exclude-from-external-load-balancers.
//  3. Upgrading, batch by batch: pick up to maxUnavailable outdated nodes
//     (random, or the chosen order), cordon them, evict their pods through
//     the Eviction API (DaemonSet and mirror pods stay; a refused eviction
//     is retried after timeouts.evictionRetryInterval), fail with
//     PodEvictionFailure naming every blocking pod and budget after
//     timeouts.drain unless force (then delete them); once empty wait
//     timeouts.postDrainWait, then terminate through the group. The
//     terminations of the last nodes lower the desired capacity by the
//     surge, the others let the group launch a replacement from the target
//     version, so the group ends at its original size with no undrained
//     scale-in. Before each further batch every instance of the group must
//     again be a Ready Node (the same gate).
//  4. ScalingDown: restore min, max and desired capacity.
//
// The Minimal strategy skips the surge: it cordons only the batch and lets
// the group back-fill every terminated node before the next batch.
package plan
