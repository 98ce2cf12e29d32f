package plan

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
)

// What the rollout puts on nodes.
const (
	// TaintKey is the PreferNoSchedule taint on outdated nodes; its value is
	// the rollout's name.
	TaintKey = "nodeboot.io/rollout"
	// LabelExcludeLB stops external load balancers sending to a node.
	LabelExcludeLB = "node.kubernetes.io/exclude-from-external-load-balancers"
	// AnnotationCordonedBy and AnnotationLBExcludedBy name the rollout that
	// cordoned the node or added LabelExcludeLB, so that an abort undoes
	// only what the rollout did.
	AnnotationCordonedBy   = "nodeboot.io/cordoned-by"
	AnnotationLBExcludedBy = "nodeboot.io/lb-excluded-by"
)

// Labels managed node groups put on their nodes.
const (
	LabelNodeGroup                   = "eks.amazonaws.com/nodegroup"
	LabelSourceLaunchTemplateID      = "eks.amazonaws.com/sourceLaunchTemplateId"
	LabelSourceLaunchTemplateVersion = "eks.amazonaws.com/sourceLaunchTemplateVersion"
)

// NodeInstanceID returns the EC2 instance ID of a Node, from its providerID.
func NodeInstanceID(n *corev1.Node) string {
	return nodegroup.InstanceIDFromProviderID(n.Spec.ProviderID)
}

// NodeReady reports whether the Node's Ready condition is True.
func NodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// hasTaint reports whether the node carries the rollout's taint.
func hasTaint(n *corev1.Node, rollout string) bool {
	return slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool {
		return t.Key == TaintKey && t.Value == rollout && t.Effect == corev1.TaintEffectPreferNoSchedule
	})
}

// RolloutTaint is the taint the rollout puts on outdated nodes.
func RolloutTaint(rollout string) corev1.Taint {
	return corev1.Taint{Key: TaintKey, Value: rollout, Effect: corev1.TaintEffectPreferNoSchedule}
}

// cordoned reports whether the node is unschedulable and excluded from
// external load balancers.
func cordoned(n *corev1.Node) bool {
	return n.Spec.Unschedulable && n.Labels[LabelExcludeLB] == "true"
}

// Touched reports whether the rollout changed the node in a way a
// release must undo.
func Touched(n *corev1.Node, rollout string) bool {
	return hasTaint(n, rollout) || n.Annotations[AnnotationCordonedBy] == rollout || n.Annotations[AnnotationLBExcludedBy] == rollout
}

// isDaemonSetPod and isMirrorPod are the pods a drain leaves alone.
func isDaemonSetPod(p *corev1.Pod) bool {
	ref := metav1.GetControllerOfNoCopy(p)
	return ref != nil && ref.Kind == "DaemonSet"
}

func isMirrorPod(p *corev1.Pod) bool {
	_, ok := p.Annotations[corev1.MirrorPodAnnotationKey]
	return ok
}

func isFinished(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// mustLeave reports whether a drain must move the pod off its node:
// everything but DaemonSet pods, mirror pods and finished pods.
func mustLeave(p *corev1.Pod) bool {
	return !isDaemonSetPod(p) && !isMirrorPod(p) && !isFinished(p)
}

// podRef names p.
func podRef(p *corev1.Pod) PodRef { return PodRef{Namespace: p.Namespace, Name: p.Name, UID: p.UID} }

// nodeOf is a Node with the group instance behind it.
type nodeOf struct {
	*corev1.Node
	instance nodegroup.Instance
}
