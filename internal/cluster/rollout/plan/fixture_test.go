package plan

import (
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
)

// t0 is the fixtures' start time.
var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// fixture is a node group, its nodes and pods, and a rollout, that the
// tests plan against; sim applies decisions to it like the real world.
type fixture struct {
	now     time.Time
	ro      *rolloutv1.NodeGroupRollout
	group   nodegroup.State
	nodes   []corev1.Node
	pods    []corev1.Pod
	pdbs    []policyv1.PodDisruptionBudget
	next    int
	zones   []string
	version string // what the group launches now
	// lazyPods hands the planner the pods through Snapshot.PodsOn.
	lazyPods bool
}

// newFixture is a group of n instances at version "1" over zones (balanced),
// each a Ready node with the managed-node-group labels, and a rollout to
// version "2" with the given spec changes.
func newFixture(n int, zones []string, spec func(*rolloutv1.NodeGroupRolloutSpec)) *fixture {
	f := &fixture{now: t0, zones: zones, version: "1"}
	f.group = nodegroup.State{
		Name: "workers", MinSize: 1, MaxSize: int32(n), Desired: int32(n), Zones: zones,
		LaunchTemplate: &nodegroup.LaunchTemplate{ID: "lt-1", Name: "workers", Version: "1"},
	}
	for i := 0; i < n; i++ {
		f.launch(zones[i%len(zones)], "1")
	}
	f.ro = &rolloutv1.NodeGroupRollout{
		ObjectMeta: metav1.ObjectMeta{Name: "r1", UID: "uid-r1", Generation: 1, CreationTimestamp: metav1.NewTime(t0)},
		Spec: rolloutv1.NodeGroupRolloutSpec{
			NodeGroup:             rolloutv1.NodeGroupReference{AutoScalingGroupName: "workers"},
			LaunchTemplateVersion: "2",
		},
	}
	if spec != nil {
		spec(&f.ro.Spec)
	}
	return f
}

func threeZones() []string { return []string{"us-west-2a", "us-west-2b", "us-west-2c"} }

// launch adds an InService instance of version and its Ready Node.
func (f *fixture) launch(zone, version string) nodegroup.Instance {
	f.next++
	in := nodegroup.Instance{ID: fmt.Sprintf("i-%03d", f.next), Zone: zone, Version: version, LifecycleState: nodegroup.LifecycleInService}
	f.group.Instances = append(f.group.Instances, in)
	f.nodes = append(f.nodes, corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("node-%03d", f.next), CreationTimestamp: metav1.NewTime(f.now.Add(time.Duration(f.next) * time.Second)),
			Labels: map[string]string{
				LabelNodeGroup: "workers", LabelSourceLaunchTemplateID: "lt-1", LabelSourceLaunchTemplateVersion: version,
				corev1.LabelTopologyZone: zone,
			},
		},
		Spec:   corev1.NodeSpec{ProviderID: "aws:///" + zone + "/" + in.ID},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	})
	return in
}

func (f *fixture) snapshot() Snapshot {
	s := Snapshot{Now: f.now, Rollout: f.ro, Group: f.group, Nodes: f.nodes, Pods: f.pods, PDBs: f.pdbs}
	if f.lazyPods {
		pods := s.Pods
		s.Pods, s.PodsOn = nil, func(node string) []corev1.Pod {
			var out []corev1.Pod
			for _, p := range pods {
				if p.Spec.NodeName == node {
					out = append(out, p)
				}
			}
			return out
		}
	}
	return s
}

// plan plans once and stores the status in the rollout (as the controller
// persists it before acting).
func (f *fixture) plan() Decision {
	d := Plan(f.snapshot())
	f.ro.Status = d.Status
	return d
}

func (f *fixture) node(name string) *corev1.Node {
	for i := range f.nodes {
		if f.nodes[i].Name == name {
			return &f.nodes[i]
		}
	}
	return nil
}

func (f *fixture) nodeOfInstance(id string) *corev1.Node {
	for i := range f.nodes {
		if NodeInstanceID(&f.nodes[i]) == id {
			return &f.nodes[i]
		}
	}
	return nil
}

// podOpt changes a pod.
type podOpt func(*corev1.Pod)

// addPod puts a pod owned by a ReplicaSet (owner) on a node.
func (f *fixture) addPod(node, name string, opts ...podOpt) *corev1.Pod {
	p := corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "default", Name: name, UID: types.UID("uid-" + name), Labels: map[string]string{"app": name},
			OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: name + "-rs", UID: types.UID("rs-" + name), Controller: ptr.To(true)}},
		},
		Spec:   corev1.PodSpec{NodeName: node},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	for _, o := range opts {
		o(&p)
	}
	f.pods = append(f.pods, p)
	return &f.pods[len(f.pods)-1]
}

func withLabels(kv ...string) podOpt {
	return func(p *corev1.Pod) {
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func ownedBy(kind, name string) podOpt {
	return func(p *corev1.Pod) {
		p.OwnerReferences = []metav1.OwnerReference{{Kind: kind, Name: name, UID: types.UID(kind + "-" + name), Controller: ptr.To(true)}}
	}
}

func unowned() podOpt { return func(p *corev1.Pod) { p.OwnerReferences = nil } }

func annotated(k, v string) podOpt {
	return func(p *corev1.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[k] = v
	}
}

func deletedAt(t time.Time) podOpt {
	return func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{Time: t} }
}

func tolerateAll() podOpt {
	return func(p *corev1.Pod) {
		p.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	}
}

func withEmptyDir() podOpt {
	return func(p *corev1.Pod) {
		p.Spec.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	}
}

func grace(s int64) podOpt {
	return func(p *corev1.Pod) { p.Spec.TerminationGracePeriodSeconds = &s }
}

// addPDB adds a budget selecting app=value with the given status numbers.
func (f *fixture) addPDB(name, app string, allowed, healthy, desired, expected int32) {
	f.pdbs = append(f.pdbs, policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: policyv1.PodDisruptionBudgetSpec{
			Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
			MinAvailable: ptr.To(intstr.FromInt32(desired)),
		},
		Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed, CurrentHealthy: healthy, DesiredHealthy: desired, ExpectedPods: expected},
	})
}

// actionsOf returns the decision's actions of type T.
func actionsOf[T Action](d Decision) []T {
	var out []T
	for _, a := range d.Actions {
		if v, ok := a.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

func hasEvent(d Decision, reason string) bool {
	return slices.ContainsFunc(d.Events, func(e Event) bool { return e.Reason == reason })
}

func mustPhase(t *testing.T, d Decision, want rolloutv1.Phase) {
	t.Helper()
	if d.Status.Phase != want {
		t.Fatalf("phase = %s (%s), want %s", d.Status.Phase, d.Status.Message, want)
	}
}
