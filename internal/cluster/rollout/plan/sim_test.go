package plan

import (
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
)

// sim applies decisions to a fixture the way the cluster and Auto Scaling
// would, and records what the rollout did for invariant checks.
type sim struct {
	*fixture
	t *testing.T
	// latest is the launch template's newest version.
	latest int
	// terminations counts termination requests per instance (resends
	// included); killed lists pods that died with their node undrained.
	terminations map[string]int
	killed       []string
	minInService int
	evicted      int
	// decremented lists the instances terminated with a decrement;
	// mostTracked is the most nodes a status held.
	decremented []string
	mostTracked int
	// last is the last decision applied.
	last      Decision
	recreated int
}

func newSim(t *testing.T, f *fixture) *sim {
	return &sim{fixture: f, t: t, latest: 2, terminations: map[string]int{}, minInService: len(f.group.Instances)}
}

// run plans and applies until the rollout is terminal or failed, and
// returns the number of planning steps.
func (s *sim) run(maxSteps int) int {
	s.t.Helper()
	return s.runUntil(maxSteps, func() bool {
		return s.ro.Status.Phase.Terminal() || s.ro.Status.Phase == rolloutv1.PhaseFailed
	})
}

// runUntil plans and applies until done reports true after a step.
func (s *sim) runUntil(maxSteps int, done func() bool) int {
	s.t.Helper()
	for i := 1; i <= maxSteps; i++ {
		d := s.plan()
		s.last = d
		res := s.apply(d)
		Record(&s.ro.Status, res, s.now)
		s.mostTracked = max(s.mostTracked, len(s.ro.Status.Nodes))
		if done() {
			return i
		}
		step := 100 * time.Millisecond
		if len(d.Actions) == 0 {
			step = max(d.RequeueAfter, time.Second)
		}
		s.now = s.now.Add(step)
	}
	s.t.Fatalf("rollout not finished after %d steps: %s (%s)", maxSteps, s.ro.Status.Phase, s.ro.Status.Message)
	return maxSteps
}

func (s *sim) apply(d Decision) Results {
	var res Results
	for _, a := range d.Actions {
		switch a := a.(type) {
		case ResolveTarget:
			res.Target = s.resolve(a.Version)
		case CreateTarget:
			s.latest++
			res.Target = fmt.Sprint(s.latest)
		case SetLaunchTemplate:
			s.group.LaunchTemplate.Version = a.Template.Version
		case SetSizes:
			s.group.MinSize, s.group.MaxSize, s.group.Desired = a.MinSize, a.MaxSize, a.Desired
			s.reconcile()
		case MarkOld:
			n := s.node(a.Node)
			n.Spec.Taints = append(n.Spec.Taints, RolloutTaint(s.ro.Name))
		case Cordon:
			n := s.node(a.Node)
			n.Spec.Unschedulable = true
			n.Labels[LabelExcludeLB] = "true"
			n.Annotations = map[string]string{AnnotationCordonedBy: s.ro.Name, AnnotationLBExcludedBy: s.ro.Name}
		case Release:
			n := s.node(a.Node)
			n.Spec.Unschedulable = false
			delete(n.Labels, LabelExcludeLB)
			n.Annotations = nil
			n.Spec.Taints = nil
		case Evict:
			for _, p := range a.Pods {
				res.Evictions = append(res.Evictions, s.evict(a.Node, p))
			}
		case Delete:
			for _, p := range append(a.Pods, a.Terminating...) {
				s.move(p.UID)
			}
		case Terminate:
			s.terminate(a.InstanceID, a.Decrement)
		default:
			s.t.Fatalf("unknown action %T", a)
		}
	}
	s.minInService = min(s.minInService, len(s.group.Instances))
	return res
}

func (s *sim) resolve(v string) string {
	switch v {
	case "$Latest":
		return fmt.Sprint(s.latest)
	case "$Default":
		return "1"
	}
	return v
}

// evict refuses like the Eviction API when a budget allows nothing (429)
// or several budgets match (500), else moves the pod to a new node.
func (s *sim) evict(node string, ref PodRef) EvictionResult {
	r := EvictionResult{Node: node, Pod: ref}
	i := slices.IndexFunc(s.pods, func(p corev1.Pod) bool { return p.UID == ref.UID })
	if i < 0 {
		return r
	}
	bs := newBudgets(s.pdbs).matching(&s.pods[i])
	switch {
	case len(bs) > 1:
		r.Reason, r.Message, r.PodDisruptionBudgets = rolloutv1.BlockedByMultiplePDBs, "This pod has more than one PodDisruptionBudget", budgetNames(bs)
		return r
	case len(bs) == 1 && bs[0].pdb.Status.DisruptionsAllowed == 0:
		r.Reason, r.Message, r.PodDisruptionBudgets = rolloutv1.BlockedByPDB, "Cannot evict pod as it would violate the pod's disruption budget.", budgetNames(bs)
		return r
	}
	s.evicted++
	s.move(ref.UID)
	return r
}

// move re-creates a pod on a schedulable node (its controller's new pod).
func (s *sim) move(uid types.UID) {
	i := slices.IndexFunc(s.pods, func(p corev1.Pod) bool { return p.UID == uid })
	if i < 0 {
		return
	}
	p := s.pods[i]
	for _, n := range s.nodes {
		if !n.Spec.Unschedulable && len(n.Spec.Taints) == 0 && n.Name != p.Spec.NodeName {
			s.recreated++
			p.Spec.NodeName = n.Name
			p.UID = types.UID(fmt.Sprintf("%s-%d", p.Name, s.recreated))
			p.DeletionTimestamp = nil
			s.pods[i] = p
			return
		}
	}
	s.pods = slices.Delete(s.pods, i, i+1) // nowhere to go: pending, not on any node
}

func (s *sim) terminate(id string, decrement bool) {
	s.terminations[id]++
	i := slices.IndexFunc(s.group.Instances, func(in nodegroup.Instance) bool { return in.ID == id })
	if i < 0 {
		return
	}
	s.group.Instances = slices.Delete(s.group.Instances, i, i+1)
	if n := s.nodeOfInstance(id); n != nil {
		for _, p := range s.pods {
			if p.Spec.NodeName == n.Name && mustLeave(&p) {
				s.killed = append(s.killed, p.Name)
			}
		}
		name := n.Name
		s.nodes = slices.DeleteFunc(s.nodes, func(n corev1.Node) bool { return n.Name == name })
		s.pods = slices.DeleteFunc(s.pods, func(p corev1.Pod) bool { return p.Spec.NodeName == name })
	}
	if decrement {
		s.group.Desired--
		s.decremented = append(s.decremented, id)
	}
	s.reconcile()
}

// reconcile keeps the group at its desired capacity (launching in the
// least populated zone from the group's version).
func (s *sim) reconcile() {
	for int32(len(s.group.Instances)) < s.group.Desired {
		per := map[string]int{}
		for _, in := range s.group.Instances {
			per[in.Zone]++
		}
		zone := s.zones[0]
		for _, z := range s.zones {
			if per[z] < per[zone] {
				zone = z
			}
		}
		s.launch(zone, s.resolve(s.group.LaunchTemplate.Version))
	}
	for int32(len(s.group.Instances)) > s.group.Desired {
		s.terminateUndrained(s.group.Instances[0].ID)
	}
}

func (s *sim) terminateUndrained(id string) {
	s.terminations[id]++
	i := slices.IndexFunc(s.group.Instances, func(in nodegroup.Instance) bool { return in.ID == id })
	s.group.Instances = slices.Delete(s.group.Instances, i, i+1)
	if n := s.nodeOfInstance(id); n != nil {
		for _, p := range s.pods {
			if p.Spec.NodeName == n.Name && mustLeave(&p) {
				s.killed = append(s.killed, p.Name)
			}
		}
		name := n.Name
		s.nodes = slices.DeleteFunc(s.nodes, func(n corev1.Node) bool { return n.Name == name })
	}
}

// checkSucceeded asserts the end state of a finished rollout.
func (s *sim) checkSucceeded(original int32) {
	s.t.Helper()
	st := s.ro.Status
	if st.Phase != rolloutv1.PhaseSucceeded {
		s.t.Fatalf("phase %s: %s", st.Phase, st.Message)
	}
	for _, in := range s.group.Instances {
		if in.Version != st.Target.Version {
			s.t.Errorf("instance %s still runs version %s", in.ID, in.Version)
		}
	}
	if s.group.Desired != original || s.group.MaxSize != st.Original.MaxSize || s.group.MinSize != st.Original.MinSize {
		s.t.Errorf("group sizes min %d max %d desired %d, want %+v", s.group.MinSize, s.group.MaxSize, s.group.Desired, st.Original)
	}
	if len(s.killed) > 0 {
		s.t.Errorf("pods killed on undrained nodes: %v", s.killed)
	}
	for id, n := range s.terminations {
		if n != 1 {
			s.t.Errorf("instance %s: %d termination requests, want 1", id, n)
		}
	}
	if int(st.NodesReplaced) != int(st.NodesTotal) {
		s.t.Errorf("replaced %d of %d", st.NodesReplaced, st.NodesTotal)
	}
	// The status keeps the nodes in flight, not the replaced ones.
	if len(st.Nodes) != 0 {
		s.t.Errorf("status still lists %d nodes at the end: %+v", len(st.Nodes), st.Nodes)
	}
	if s.mostTracked > 2*int(st.MaxUnavailable) {
		s.t.Errorf("status held up to %d nodes, want at most two batches (%d)", s.mostTracked, 2*st.MaxUnavailable)
	}
}

// spreadPods puts a pod of each app on every node of the fixture, round robin.
func (s *sim) spreadPods(perNode int) {
	for i, n := range s.nodes {
		for j := 0; j < perNode; j++ {
			s.addPod(n.Name, fmt.Sprintf("app%d-%d", j, i), withLabels("tier", fmt.Sprint(j)))
		}
	}
}
