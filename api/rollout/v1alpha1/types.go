package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// NodeGroupRollout replaces every node of a node group that does not run the
// target launch-template version. It is cluster-scoped, like Nodes.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=ngr,categories=nodeboot
// +kubebuilder:printcolumn:name="Group",type=string,JSONPath=`.spec.nodeGroup.autoScalingGroupName`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Replaced",type=integer,JSONPath=`.status.nodesReplaced`
// +kubebuilder:printcolumn:name="Total",type=integer,JSONPath=`.status.nodesTotal`
// +kubebuilder:printcolumn:name="Batch",type=integer,JSONPath=`.status.batch`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type NodeGroupRollout struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   NodeGroupRolloutSpec   `json:"spec"`
	Status NodeGroupRolloutStatus `json:"status,omitempty"`
}

// NodeGroupRolloutList is a list of NodeGroupRollouts.
//
// +kubebuilder:object:root=true
type NodeGroupRolloutList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []NodeGroupRollout `json:"items"`
}

// NodeGroupRolloutSpec says what to roll out and how.
//
// The rules of the target's fields compare a value with the old one only
// when both are set; the spec's compares whether each is set, so that the
// target cannot be added, removed or swapped for the other field either.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.launchTemplateVersion) && has(self.imageID))",message="set at most one of launchTemplateVersion and imageID"
// +kubebuilder:validation:XValidation:rule="has(self.launchTemplateVersion) == has(oldSelf.launchTemplateVersion) && has(self.imageID) == has(oldSelf.imageID)",message="the target cannot change once created: launchTemplateVersion and imageID cannot be added or removed"
type NodeGroupRolloutSpec struct {
	// NodeGroup is the Auto Scaling group whose nodes are replaced.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="nodeGroup is immutable"
	NodeGroup NodeGroupReference `json:"nodeGroup"`

	// LaunchTemplateVersion is the target version of the group's launch
	// template: a version number, "$Latest" or "$Default" (resolved to a
	// number when the rollout starts). With neither this nor imageID, the
	// target is the version the group launches now.
	// +optional
	// +kubebuilder:validation:MaxLength=10
	// +kubebuilder:validation:Pattern=`^([1-9][0-9]{0,8}|\$Latest|\$Default)$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="launchTemplateVersion is immutable"
	LaunchTemplateVersion string `json:"launchTemplateVersion,omitempty"`

	// ImageID creates the target version from the group's current one with
	// only the AMI changed (CreateLaunchTemplateVersion with a source
	// version), as managed node groups do for a new release.
	// +optional
	// +kubebuilder:validation:MaxLength=21
	// +kubebuilder:validation:Pattern=`^ami-([0-9a-f]{8}|[0-9a-f]{17})$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="imageID is immutable"
	ImageID string `json:"imageID,omitempty"`

	// Strategy is Default (surge first, then replace) or Minimal (replace
	// without surge; the group back-fills each terminated node).
	// +optional
	// +kubebuilder:default=Default
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="strategy is immutable"
	Strategy Strategy `json:"strategy,omitempty"`

	// MaxUnavailable is how many nodes are replaced at once: a count or a
	// percentage of the group's desired capacity (rounded down, at least 1),
	// capped at 100 nodes. Default 1.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? (self >= 1 && self <= 100) : self.matches('^(100|[1-9][0-9]?)%$')",message="maxUnavailable is 1..100 or 1%..100%"
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`

	// NodeOrder is the order in which outdated nodes are replaced: Random
	// (managed node groups' behaviour, the default), Oldest, Newest or Name.
	// +optional
	NodeOrder NodeOrder `json:"nodeOrder,omitempty"`

	// Force deletes pods that cannot be evicted once the drain timeout is
	// reached (bypassing PodDisruptionBudgets) instead of failing with
	// PodEvictionFailure. Setting it on a failed rollout resumes it.
	// +optional
	Force bool `json:"force,omitempty"`

	// Paused stops every action (no eviction, termination or new batch)
	// until it is cleared; deadlines are extended by the paused time.
	// +optional
	Paused bool `json:"paused,omitempty"`

	// Abort stops the rollout for good: nodes not yet drained are
	// uncordoned and untainted, and the group's sizes and launch-template
	// version are restored. It cannot be undone.
	// +optional
	// +kubebuilder:validation:XValidation:rule="oldSelf == false || self == true",message="abort cannot be cleared"
	Abort bool `json:"abort,omitempty"`

	// Timeouts are the durations of the algorithm; unset ones take the
	// managed-node-group values.
	// +optional
	Timeouts Timeouts `json:"timeouts,omitempty"`

	// NewNodes says what a new node must show to count as capacity.
	// +optional
	NewNodes NewNodeRequirements `json:"newNodes,omitempty"`
}

// NodeGroupReference names an Auto Scaling group.
//
// An empty name counts as none: it means the group's name too.
//
// +kubebuilder:validation:XValidation:rule="(has(self.name) && size(self.name) > 0) || (size(self.autoScalingGroupName) <= 63 && self.autoScalingGroupName.matches('^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$'))",message="name is required when autoScalingGroupName is not a label value, which new nodes carry in eks.amazonaws.com/nodegroup"
type NodeGroupReference struct {
	// AutoScalingGroupName is the group's name: 1 to 255 characters, none
	// of them a control character.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[^\x00-\x1f\x7f]+$`
	AutoScalingGroupName string `json:"autoScalingGroupName"`
	// Region is the group's AWS region, such as us-west-2 or
	// us-gov-east-1; empty means the controller's.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^[a-z]{2,4}(-[a-z]+)+-[1-9][0-9]?$`
	Region string `json:"region,omitempty"`
	// Name is the node group name new nodes carry in the
	// eks.amazonaws.com/nodegroup label (a label value); empty means the
	// group's name.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`
	Name string `json:"name,omitempty"`
}

// Timeouts are the durations of the rollout algorithm. Each may be 0.
type Timeouts struct {
	// Drain is how long one node may take to drain before the rollout fails
	// with PodEvictionFailure (or, with force, deletes the rest). Default 15m.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^(0|([0-9]{1,5}([.][0-9]{1,9})?(ns|us|µs|ms|s|m|h)){1,4})$') && duration(self) <= duration('168h')",message="must be a duration from 0 to 168h, such as 90s, 15m or 1h30m"
	Drain *metav1.Duration `json:"drain,omitempty"`
	// PostDrainWait is the wait between the last pod leaving a cordoned node
	// and its termination, so load balancers stop sending to it. Default 60s.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^(0|([0-9]{1,5}([.][0-9]{1,9})?(ns|us|µs|ms|s|m|h)){1,4})$') && duration(self) <= duration('168h')",message="must be a duration from 0 to 168h, such as 90s, 15m or 1h30m"
	PostDrainWait *metav1.Duration `json:"postDrainWait,omitempty"`
	// NodeCreation bounds the wait for new capacity (every new instance a
	// Ready node with the expected labels, at least one per zone) before the
	// rollout fails with NodeCreationFailure. Default 15m.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^(0|([0-9]{1,5}([.][0-9]{1,9})?(ns|us|µs|ms|s|m|h)){1,4})$') && duration(self) <= duration('168h')",message="must be a duration from 0 to 168h, such as 90s, 15m or 1h30m"
	NodeCreation *metav1.Duration `json:"nodeCreation,omitempty"`
	// EvictionRetryInterval is the pause before a refused eviction is
	// retried. Default 5s (kubectl drain's).
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^(0|([0-9]{1,5}([.][0-9]{1,9})?(ns|us|µs|ms|s|m|h)){1,4})$') && duration(self) <= duration('168h')",message="must be a duration from 0 to 168h, such as 90s, 15m or 1h30m"
	EvictionRetryInterval *metav1.Duration `json:"evictionRetryInterval,omitempty"`
}

// NewNodeRequirements is what a node launched from the target version must
// show before it counts as new capacity.
type NewNodeRequirements struct {
	// EKSLabels requires eks.amazonaws.com/nodegroup,
	// eks.amazonaws.com/sourceLaunchTemplateId and
	// eks.amazonaws.com/sourceLaunchTemplateVersion (the target), as managed
	// node groups do. Default true; self-managed groups whose user data does
	// not set them turn it off.
	// +optional
	EKSLabels *bool `json:"eksLabels,omitempty"`
	// Labels must all be present with these values: at most 64, each key
	// a label key (a qualified name).
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 317 && k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && (k.contains('/') ? size(k.split('/')[0]) <= 253 && size(k.split('/')[1]) <= 63 : size(k) <= 63))",message="keys must be label keys: an optional DNS subdomain of at most 253 characters and a slash, then at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit"
	Labels map[string]LabelValue `json:"labels,omitempty"`
}

// LabelValue is a label value: at most 63 letters, digits, '-', '_' and
// '.', starting and ending with a letter or digit, or empty.
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:Pattern=`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`
type LabelValue string

// Strategy is how capacity is handled during the rollout.
// +kubebuilder:validation:Enum=Default;Minimal
type Strategy string

// Strategies, as managed node groups name them (DEFAULT, MINIMAL).
const (
	StrategyDefault Strategy = "Default"
	StrategyMinimal Strategy = "Minimal"
)

// NodeOrder is the order in which outdated nodes are picked.
// +kubebuilder:validation:Enum=Random;Oldest;Newest;Name
type NodeOrder string

// Node orders.
const (
	OrderRandom NodeOrder = "Random"
	OrderOldest NodeOrder = "Oldest"
	OrderNewest NodeOrder = "Newest"
	OrderName   NodeOrder = "Name"
)

// Every int32 field of the status carries bounds within the int32 range:
// the API server does not enforce format: int32, so it would store
// batch: 3000000000, which a typed client (nodeboot-rollout status)
// cannot decode and the controller's unstructured decoding wraps round
// to -1294967296. Counts start at 0; surge and maxUnavailable end at 100
// (MaxUnavailableCap). The rules that relate one field to another are on
// the smallest object that holds them (a node's step and its times, the
// group's sizes), so that the API server's validation ratcheting still
// lets the controller report on an object stored before them; those that
// span the status (a phase and what it needs) are the controller's
// (plan.CheckStatus), for the same reason.

// NodeGroupRolloutStatus is the rollout's whole state.
type NodeGroupRolloutStatus struct {
	// ObservedGeneration is the spec generation the status reflects.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions are Ready (every node runs the target and the group is
	// restored), Progressing (the controller is moving the rollout on) and
	// Degraded (it failed, or the object cannot be read), each with a
	// reason, alongside the phase.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Phase is where the rollout is.
	// +optional
	Phase Phase `json:"phase,omitempty"`
	// ResumePhase is the phase a paused rollout returns to.
	// +optional
	ResumePhase Phase `json:"resumePhase,omitempty"`
	// Message says what happens now, or what blocks.
	// +optional
	Message string `json:"message,omitempty"`
	// Failure is set when Phase is Failed.
	// +optional
	Failure *Failure `json:"failure,omitempty"`

	// StartTime is when the rollout started; CompletionTime when it reached
	// Succeeded or Aborted.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`
	// PausedTime is when the current pause began.
	// +optional
	PausedTime *metav1.Time `json:"pausedTime,omitempty"`
	// WaitingSince is when the current wait for new capacity began.
	// +optional
	WaitingSince *metav1.Time `json:"waitingSince,omitempty"`

	// Original is the group as it was before the rollout changed it.
	// +optional
	Original *GroupSettings `json:"original,omitempty"`
	// Target is the launch-template version every node must run: a
	// version number.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self.version.matches('^[1-9][0-9]{0,18}$')",message="target.version must be a version number"
	Target *LaunchTemplateVersion `json:"target,omitempty"`
	// Surge is how many nodes were added to the group's desired capacity.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	Surge int32 `json:"surge,omitempty"`
	// MaxUnavailable is spec.maxUnavailable resolved to a node count (0
	// until the rollout starts).
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	MaxUnavailable int32 `json:"maxUnavailable,omitempty"`
	// Batch is the number of the current (or last) batch, from 1.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2147483647
	Batch int32 `json:"batch,omitempty"`

	// NodesTotal is how many nodes ran an outdated version at the start;
	// NodesReplaced how many of them are terminated.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2147483647
	NodesTotal int32 `json:"nodesTotal,omitempty"`
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2147483647
	NodesReplaced int32 `json:"nodesReplaced,omitempty"`
	// Nodes are the nodes the rollout works on, in the order picked: those
	// in flight, the released ones (abort), and the terminated ones whose
	// instance is still in the group. A terminated node leaves the list
	// once its instance left the group (NodesReplaced counts it, a
	// NodeReplaced Event records it), so the list holds about a batch or
	// two, not the whole group.
	// +optional
	// +listType=map
	// +listMapKey=instanceID
	Nodes []NodeProgress `json:"nodes,omitempty"`
}

// Phase is a rollout phase.
// +kubebuilder:validation:Enum=Initializing;ScalingUp;Upgrading;ScalingDown;Succeeded;Failed;Paused;Aborting;Aborted
type Phase string

// Phases. A new rollout has the empty phase until the controller sees it.
const (
	// PhaseInitializing records the group, resolves or creates the target
	// version, points the group at it and taints the old nodes.
	PhaseInitializing Phase = "Initializing"
	// PhaseScalingUp adds the surge and waits for the new capacity.
	PhaseScalingUp Phase = "ScalingUp"
	// PhaseUpgrading replaces the old nodes batch by batch.
	PhaseUpgrading Phase = "Upgrading"
	// PhaseScalingDown restores the group's sizes.
	PhaseScalingDown Phase = "ScalingDown"
	PhaseSucceeded   Phase = "Succeeded"
	// PhaseFailed stops on status.failure; force (or another spec change)
	// resumes it.
	PhaseFailed   Phase = "Failed"
	PhasePaused   Phase = "Paused"
	PhaseAborting Phase = "Aborting"
	PhaseAborted  Phase = "Aborted"
)

// Terminal reports whether no further action follows the phase.
func (p Phase) Terminal() bool { return p == PhaseSucceeded || p == PhaseAborted }

// Condition types of the status.
const (
	// ConditionReady is True once the rollout succeeded.
	ConditionReady = "Ready"
	// ConditionProgressing is True while the controller moves the rollout
	// on (Initializing to ScalingDown, and Aborting).
	ConditionProgressing = "Progressing"
	// ConditionDegraded is True when the rollout failed or its object
	// cannot be read.
	ConditionDegraded = "Degraded"
)

// Condition reasons besides the phases and the failure codes.
const (
	// ReasonInvalidObject: the controller cannot decode the object (an
	// object stored before its CRD validated it).
	ReasonInvalidObject = "InvalidObject"
	// ReasonInvalidStatus: the status holds what the controller never
	// writes (edited through the status subresource, say), so it does
	// not act on it.
	ReasonInvalidStatus = "InvalidStatus"
	// ReasonAsExpected: nothing is wrong.
	ReasonAsExpected = "AsExpected"
	// ReasonPending: the controller has not started the rollout yet.
	ReasonPending = "Pending"
	// ReasonAbortBlocked: the abort (or the deletion, which runs it) cannot
	// go on: the group cannot be read or changed.
	ReasonAbortBlocked = "AbortBlocked"
)

// Finalizer is the finalizer the controller puts on an active rollout, so
// that deleting it runs the abort first (the group restored, the nodes
// released).
const Finalizer = "nodeboot.io/abort-on-delete"

// Failure says why a rollout stopped.
type Failure struct {
	// Code is a managed-node-group error code.
	Code FailureCode `json:"code"`
	// Message names what failed: nodes, zones, pods and budgets.
	Message string `json:"message"`
	// Time is when the rollout failed.
	Time metav1.Time `json:"time"`
}

// FailureCode classifies a failure.
// +kubebuilder:validation:Enum=NodeCreationFailure;PodEvictionFailure;InvalidSpec;LaunchTemplateError
type FailureCode string

// Failure codes. The first two are managed node groups'.
const (
	// NodeCreationFailure: new capacity did not become Ready in time.
	NodeCreationFailure FailureCode = "NodeCreationFailure"
	// PodEvictionFailure: a node did not drain in time and force is off.
	PodEvictionFailure FailureCode = "PodEvictionFailure"
	// InvalidSpec: the spec cannot be carried out (e.g. unknown version).
	InvalidSpec FailureCode = "InvalidSpec"
	// LaunchTemplateError: the group uses no launch template.
	LaunchTemplateError FailureCode = "LaunchTemplateError"
)

// GroupSettings is what the rollout changes on the group and restores:
// sizes as Auto Scaling keeps them, min <= desired <= max.
//
// +kubebuilder:validation:XValidation:rule="self.minSize <= self.desiredCapacity && self.desiredCapacity <= self.maxSize",message="sizes must be minSize <= desiredCapacity <= maxSize"
type GroupSettings struct {
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2147483647
	MinSize int32 `json:"minSize"`
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2147483647
	MaxSize int32 `json:"maxSize"`
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2147483647
	DesiredCapacity int32 `json:"desiredCapacity"`
	// LaunchTemplate is the group's launch template and version setting
	// (which may be "$Latest" or "$Default").
	LaunchTemplate LaunchTemplateVersion `json:"launchTemplate"`
}

// LaunchTemplateVersion names one version of a launch template.
type LaunchTemplateVersion struct {
	ID string `json:"id"`
	// +optional
	Name    string `json:"name,omitempty"`
	Version string `json:"version"`
}

// NodeProgress is one picked node's progress. A step that waits has the
// time it waits from or for.
//
// +kubebuilder:validation:XValidation:rule="self.step != 'Draining' || has(self.drainDeadline)",message="a Draining node needs drainDeadline"
// +kubebuilder:validation:XValidation:rule="self.step != 'WaitingAfterDrain' || has(self.drainedTime)",message="a WaitingAfterDrain node needs drainedTime"
// +kubebuilder:validation:XValidation:rule="self.step != 'Terminating' || has(self.terminationTime)",message="a Terminating node needs terminationTime"
type NodeProgress struct {
	Name       string `json:"name"`
	InstanceID string `json:"instanceID"`
	// +optional
	Zone string `json:"zone,omitempty"`
	// Batch is the batch the node belongs to (0: a surplus node an abort
	// removes).
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2147483647
	Batch int32    `json:"batch"`
	Step  NodeStep `json:"step"`
	// Decrement is whether the termination lowers the group's desired
	// capacity (decided when termination is requested).
	// +optional
	Decrement bool `json:"decrement,omitempty"`
	// Evictions counts eviction (or, with force, delete) requests made.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2147483647
	Evictions int32 `json:"evictions,omitempty"`

	// +optional
	DrainStartTime *metav1.Time `json:"drainStartTime,omitempty"`
	// DrainDeadline is when draining fails (or, with force, deletes).
	// +optional
	DrainDeadline *metav1.Time `json:"drainDeadline,omitempty"`
	// +optional
	LastEvictionTime *metav1.Time `json:"lastEvictionTime,omitempty"`
	// +optional
	DrainedTime *metav1.Time `json:"drainedTime,omitempty"`
	// +optional
	TerminationTime *metav1.Time `json:"terminationTime,omitempty"`
	// +optional
	TerminatedTime *metav1.Time `json:"terminatedTime,omitempty"`

	// Blockers are the pods that refused to leave at the last attempt.
	// +optional
	Blockers []PodBlocker `json:"blockers,omitempty"`
}

// NodeStep is where a picked node is.
// +kubebuilder:validation:Enum=Draining;WaitingAfterDrain;Terminating;Terminated;Released
type NodeStep string

// Node steps, in order; Released ends a node the rollout let go (abort).
const (
	StepDraining          NodeStep = "Draining"
	StepWaitingAfterDrain NodeStep = "WaitingAfterDrain"
	StepTerminating       NodeStep = "Terminating"
	StepTerminated        NodeStep = "Terminated"
	StepReleased          NodeStep = "Released"
)

// PodBlocker is a pod that keeps a node from draining, and why.
type PodBlocker struct {
	// Pod is namespace/name.
	Pod    string        `json:"pod"`
	Reason BlockerReason `json:"reason"`
	// PodDisruptionBudgets are the namespace/name of the budgets involved.
	// +optional
	PodDisruptionBudgets []string `json:"podDisruptionBudgets,omitempty"`
	// Message is the API server's answer or the rule that applies.
	// +optional
	Message string `json:"message,omitempty"`
	// Since is when the pod first blocked.
	Since metav1.Time `json:"since"`
}

// BlockerReason says why a pod does not leave.
// +kubebuilder:validation:Enum=PodDisruptionBudget;MultiplePodDisruptionBudgets;DoNotDisrupt;Terminating;EvictionError
type BlockerReason string

// Blocker reasons.
const (
	// BlockedByPDB: the Eviction API answered 429 (budget exhausted).
	BlockedByPDB BlockerReason = "PodDisruptionBudget"
	// BlockedByMultiplePDBs: the Eviction API answered 500 because several
	// budgets select the pod.
	BlockedByMultiplePDBs BlockerReason = "MultiplePodDisruptionBudgets"
	// BlockedByDoNotDisrupt: the pod carries a do-not-disrupt annotation.
	BlockedByDoNotDisrupt BlockerReason = "DoNotDisrupt"
	// BlockedTerminating: the pod is being deleted and has not gone yet.
	BlockedTerminating BlockerReason = "Terminating"
	// BlockedByError: the eviction failed with another error.
	BlockedByError BlockerReason = "EvictionError"
)
