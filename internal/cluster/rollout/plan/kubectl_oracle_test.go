package plan

import (
	"io"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/kubectl/pkg/drain"
	"k8s.io/utils/ptr"
)

// The planner decides a drain from a snapshot, in one pure step for many
// nodes, and the controller sends each eviction once; k8s.io/kubectl/pkg/drain
// drains imperatively (it lists the node's pods through a live client,
// looks up DaemonSets, and blocks in its own retry loop per node), so the
// planner cannot call it. Its filters are the reference all the same:
// TestDrainSelectionAgainstKubectl runs them on the same pods.

// oracleNode is the node the oracle's pods are bound to.
const oracleNode = "node-1"

// TestDrainSelectionAgainstKubectl compares which pods a drain moves off a
// node (mustLeave) with kubectl drain's own filters (GetPodsForDeletion of
// k8s.io/kubectl/pkg/drain) run with the flags that make it drain as managed
// node groups do: --force --ignore-daemonsets --delete-emptydir-data. Where
// the answers differ the case says why (docs/rollout.md lists the same).
func TestDrainSelectionAgainstKubectl(t *testing.T) {
	tests := []struct {
		name string
		pod  *corev1.Pod
		// daemonSet is the DaemonSet that exists in the pod's namespace.
		daemonSet string
		// differs is why the planner's answer is not kubectl's ("": same).
		differs string
	}{
		{name: "ReplicaSet pod", pod: oraclePod(owned("apps/v1", "ReplicaSet", "web-1"))},
		{name: "StatefulSet pod", pod: oraclePod(owned("apps/v1", "StatefulSet", "db"))},
		{name: "Job pod", pod: oraclePod(owned("batch/v1", "Job", "backup"))},
		{name: "pod of a custom controller", pod: oraclePod(owned("example.com/v1", "Widget", "w"))},
		{name: "pod without a controller", pod: oraclePod()},
		{name: "owner that is not a controller", pod: oraclePod(func(p *corev1.Pod) {
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "c", UID: "c"}}
		})},
		{name: "emptyDir data", pod: oraclePod(owned("apps/v1", "ReplicaSet", "web-1"), scratchVolume)},
		{name: "Pending, bound to the node", pod: oraclePod(owned("apps/v1", "ReplicaSet", "web-1"), inPhase(corev1.PodPending))},
		{name: "already terminating", pod: oraclePod(owned("apps/v1", "ReplicaSet", "web-1"), terminatingSince(time.Minute))},
		{name: "mirror pod", pod: oraclePod(func(p *corev1.Pod) { p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"} })},
		{name: "DaemonSet pod", pod: oraclePod(owned("apps/v1", "DaemonSet", "agent")), daemonSet: "agent"},
		{name: "DaemonSet pod, the DaemonSet deleted", pod: oraclePod(owned("apps/v1", "DaemonSet", "agent")),
			differs: "the planner reads no DaemonSets: the orphan goes with the node, which kubectl --force deletes first"},
		{name: "DaemonSet of another API group", pod: oraclePod(owned("apps.kruise.io/v1alpha1", "DaemonSet", "agent")),
			differs: "any DaemonSet's pod stays: like apps/v1 DaemonSet pods it would be put back on the cordoned node"},
		{name: "Succeeded pod", pod: oraclePod(owned("batch/v1", "Job", "backup"), inPhase(corev1.PodSucceeded)),
			differs: "a finished pod has nothing to move: it goes with the node, where kubectl deletes it first"},
		{name: "Failed DaemonSet pod", pod: oraclePod(owned("apps/v1", "DaemonSet", "agent"), inPhase(corev1.PodFailed)), daemonSet: "agent",
			differs: "a finished pod has nothing to move: it goes with the node, where kubectl deletes it first"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			kubectl := kubectlWouldDrain(t, tc.pod, tc.daemonSet)
			ours := mustLeave(tc.pod)
			if (ours != kubectl) != (tc.differs != "") {
				t.Errorf("planner moves the pod: %t, kubectl drain: %t; documented difference: %q", ours, kubectl, tc.differs)
			}
		})
	}
}

// kubectlWouldDrain reports whether kubectl drain --force --ignore-daemonsets
// --delete-emptydir-data would delete or evict pod, with the DaemonSet
// daemonSet (if any) present.
func kubectlWouldDrain(t *testing.T, pod *corev1.Pod, daemonSet string) bool {
	t.Helper()
	objects := []runtime.Object{pod}
	if daemonSet != "" {
		objects = append(objects, &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: daemonSet}})
	}
	h := &drain.Helper{
		Ctx: t.Context(), Client: fake.NewClientset(objects...), Force: true, IgnoreAllDaemonSets: true,
		DeleteEmptyDirData: true, GracePeriodSeconds: -1, Out: io.Discard, ErrOut: io.Discard,
	}
	list, errs := h.GetPodsForDeletion(oracleNode)
	if len(errs) > 0 {
		t.Fatalf("kubectl drain refuses: %v", errs)
	}
	for _, p := range list.Pods() {
		if p.Name == pod.Name {
			return true
		}
	}
	return false
}

// oraclePod is a Running pod on oracleNode, changed by opts.
func oraclePod(opts ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "p", UID: "p-uid"},
		Spec:       corev1.PodSpec{NodeName: oracleNode},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func owned(apiVersion, kind, name string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, UID: "owner", Controller: ptr.To(true)}}
	}
}

func scratchVolume(p *corev1.Pod) {
	p.Spec.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
}

func inPhase(phase corev1.PodPhase) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Status.Phase = phase }
}

func terminatingSince(d time.Duration) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		since := metav1.NewTime(time.Now().Add(-d))
		p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &since, ptr.To[int64](30)
	}
}
