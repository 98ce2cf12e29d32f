// Package v1alpha1 holds the nodeboot.io/v1alpha1 NodeGroupRollout API: a
// rolling replacement of every node of an Auto Scaling group by nodes booted
// from a new launch-template version, with the EKS managed-node-group
// upgrade algorithm (surge, new-capacity gate, cordon, drain through the
// Eviction API, post-drain wait, terminate, restore sizes).
//
// The spec says what to roll out and how; the status holds the rollout's
// whole state (phase, per-node step and timestamps, batch, original group
// sizes, failure), so a controller that stops at any moment resumes exactly
// where it was. Example:
//
//	apiVersion: nodeboot.io/v1alpha1
//	kind: NodeGroupRollout
//	metadata:
//	  name: workers-ami-2026-11
//	spec:
//	  nodeGroup:
//	    autoScalingGroupName: eks-workers
//	    region: us-west-2
//	  imageID: ami-0123456789abcdef0   # or launchTemplateVersion: "7"
//	  strategy: Default                # or Minimal
//	  maxUnavailable: 10%
//	  nodeOrder: Oldest
//	  timeouts:
//	    drain: 15m
//	    postDrainWait: 60s
//	    nodeCreation: 15m
//	    evictionRetryInterval: 5s
//
// +kubebuilder:object:generate=true
// +groupName=nodeboot.io
package v1alpha1
