package plan

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/types"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
)

// Snapshot is everything one planning step reads.
type Snapshot struct {
	Now     time.Time
	Rollout *rolloutv1.NodeGroupRollout
	Group   nodegroup.State
	// GroupGone says that the group no longer exists (Group is empty). Only
	// an abort plans without it: nothing of the group is left to restore,
	// and the nodes the rollout marked are released.
	GroupGone bool
	// Nodes are the cluster's Nodes (at least those of the group's
	// instances); Pods the pods bound to them; PDBs every budget of the
	// namespaces of those pods.
	Nodes []corev1.Node
	Pods  []corev1.Pod
	PDBs  []policyv1.PodDisruptionBudget
	// PodsOn, when set, returns the pods bound to a Node and Pods is not
	// read: the planner asks only for the Nodes it works on (those being
	// drained or picked), so that a step over a large group does not
	// gather every pod of it. It is asked at most once per Node and step.
	PodsOn func(node string) []corev1.Pod
}

// Decision is the outcome of one planning step.
type Decision struct {
	// Status replaces the rollout's status before any action is taken.
	Status rolloutv1.NodeGroupRolloutStatus
	// Actions are to be carried out in order after Status is persisted.
	Actions []Action
	// Events are recorded on the rollout after Status is persisted.
	Events []Event
	// RequeueAfter is when to plan again at the latest (0: right away if
	// there are actions, else only on a change).
	RequeueAfter time.Duration
}

// Event is a Kubernetes Event to record on the rollout.
type Event struct {
	Warning bool
	Reason  string
	Message string
}

// Action is one effect. Every action is idempotent.
type Action interface {
	fmt.Stringer
	action()
}

// PodRef names a pod; UID guards against acting on a successor that
// reuses the name (StatefulSets).
type PodRef struct {
	Namespace, Name string
	UID             types.UID
	// PodDisruptionBudgets are the budgets selecting the pod (namespace/
	// name), to name them when an eviction is refused.
	PodDisruptionBudgets []string
	// Unhealthy: the pod is not Running and Ready, so the Eviction API may
	// let it go whatever its budgets allow (a Pending pod always, a
	// not-Ready one under unhealthyPodEvictionPolicy AlwaysAllow or while
	// the budget has its healthy pods): a refusal of another pod of the
	// same budgets does not predict its answer.
	Unhealthy bool
}

func (p PodRef) String() string { return p.Namespace + "/" + p.Name }

// ResolveTarget resolves a version setting of the launch template into
// status.target (Record).
type ResolveTarget struct{ TemplateID, Version string }

// CreateTarget creates the target version from SourceVersion with ImageID
// and records it in status.target (Record).
type CreateTarget struct{ TemplateID, SourceVersion, ImageID, ClientToken string }

// SetLaunchTemplate points the group at a launch-template version.
type SetLaunchTemplate struct{ Template nodegroup.LaunchTemplate }

// SetSizes sets the group's capacity bounds (absolute values).
type SetSizes struct{ MinSize, MaxSize, Desired int32 }

// MarkOld adds the rollout's PreferNoSchedule taint to an outdated node.
type MarkOld struct{ Node string }

// Cordon marks a node unschedulable and excluded from external load
// balancers, remembering which of the two the rollout did.
type Cordon struct{ Node string }

// Release undoes what the rollout did to a node: its taint, and the cordon
// and load-balancer exclusion if the rollout added them.
type Release struct{ Node string }

// Evict asks the Eviction API to evict pods of a node; refusals are
// reported back through Record.
type Evict struct {
	Node string
	Pods []PodRef
	// AfterCordon: the node's Cordon is in the same step, and the
	// evictions go out once it and the step's other such cordons are done
	// (not at all if it failed). A picked node is cordoned and drained in
	// one step, so that a batch whose nodes are not all cordoned yet does
	// not drain in two steps.
	AfterCordon bool
}

// Delete deletes pods of a node, bypassing PodDisruptionBudgets (force),
// with their own grace period.
type Delete struct {
	Node string
	Pods []PodRef
	// Terminating pods, past their grace period, are deleted again with a
	// zero one.
	Terminating []PodRef
}

// Terminate terminates an instance through the group.
type Terminate struct {
	InstanceID string
	Decrement  bool
}

func (ResolveTarget) action()     {}
func (CreateTarget) action()      {}
func (SetLaunchTemplate) action() {}
func (SetSizes) action()          {}
func (MarkOld) action()           {}
func (Cordon) action()            {}
func (Release) action()           {}
func (Evict) action()             {}
func (Delete) action()            {}
func (Terminate) action()         {}

func (a ResolveTarget) String() string {
	return fmt.Sprintf("resolve launch template %s version %s", a.TemplateID, a.Version)
}
func (a CreateTarget) String() string {
	return fmt.Sprintf("create launch template %s version from %s with image %s", a.TemplateID, a.SourceVersion, a.ImageID)
}
func (a SetLaunchTemplate) String() string {
	return fmt.Sprintf("set group launch template %s version %s", a.Template.ID, a.Template.Version)
}
func (a SetSizes) String() string {
	return fmt.Sprintf("set group sizes min %d max %d desired %d", a.MinSize, a.MaxSize, a.Desired)
}
func (a MarkOld) String() string {
	return "taint node " + a.Node + " " + TaintKey + ":PreferNoSchedule"
}
func (a Cordon) String() string  { return "cordon node " + a.Node }
func (a Release) String() string { return "release node " + a.Node }
func (a Evict) String() string {
	return fmt.Sprintf("evict %d pods from node %s: %s", len(a.Pods), a.Node, joinRefs(a.Pods))
}
func (a Delete) String() string {
	return fmt.Sprintf("delete %d pods from node %s: %s", len(a.Pods)+len(a.Terminating), a.Node, joinRefs(append(a.Pods, a.Terminating...)))
}
func (a Terminate) String() string {
	return fmt.Sprintf("terminate instance %s (decrement %t)", a.InstanceID, a.Decrement)
}

func joinRefs(refs []PodRef) string {
	names := make([]string, len(refs))
	for i, r := range refs {
		names[i] = r.String()
	}
	return strings.Join(names, ", ")
}
