// Package controller runs NodeGroupRollouts: it gathers a plan.Snapshot
// (the rollout, its node group through nodegroup.Group, and Nodes, Pods and
// PodDisruptionBudgets from the informer caches), persists the status
// plan.Plan decides, then carries out the actions and records what they
// reported. It holds no state of its own that a restart would lose, except
// a short-lived cache of the group's description.
package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

// ControllerName names the controller in logs and metrics.
const ControllerName = "nodegrouprollout"

// Defaults of the Reconciler's intervals.
const (
	// DefaultGroupRefresh is how long a description of the group is reused
	// while nothing the controller did or saw changed it.
	DefaultGroupRefresh = 5 * time.Second
	// DefaultPoll is the longest pause between two planning steps of an
	// active rollout (the group changes without a Kubernetes event).
	DefaultPoll = 10 * time.Second
	// DefaultWorkers is the default of Reconciler.Workers.
	DefaultWorkers = 16
	// DefaultNodePatches is the default of Reconciler.NodePatches.
	DefaultNodePatches = 50
	// conflictRetry is the pause after a write conflict.
	conflictRetry = 100 * time.Millisecond
	// deferredPatchRetry is the pause before the next planning step when
	// the last one left node patches for it.
	deferredPatchRetry = time.Millisecond
)

// Reconciler plans and carries out NodeGroupRollouts.
type Reconciler struct {
	// Client reads from the informer caches and writes to the API server.
	Client client.Client
	// Recorder records Events on the rollout.
	Recorder record.EventRecorder
	// Groups opens the node group a rollout names.
	Groups GroupOpener
	// Clock tells the time; nil means the real clock.
	Clock clock.PassiveClock
	// Metrics records progress; nil records nothing.
	Metrics *Metrics
	// GroupRefresh and Poll: 0 means the defaults.
	GroupRefresh, Poll time.Duration
	// Workers bounds the requests one planning step's actions make at the
	// same time; 0 means DefaultWorkers.
	Workers int
	// NodePatches bounds the Node patches (taints, cordons, releases) one
	// planning step makes; the planner asks for the rest again in the next
	// step, right after. The batch's own cordons come first. 0 means
	// DefaultNodePatches. Set it to what the client's rate limit lets
	// through at once (about half its burst), so that a large group's
	// patches are spread over steps instead of holding one up.
	NodePatches int

	cache *groupCache
}

func (r *Reconciler) now() time.Time {
	if r.Clock == nil {
		return time.Now()
	}
	return r.Clock.Now()
}

func (r *Reconciler) poll() time.Duration {
	if r.Poll > 0 {
		return r.Poll
	}
	return DefaultPoll
}

// Reconcile runs one planning step of a rollout. The rollout is read as
// unstructured data and decoded here, so that an object the controller
// cannot decode is reported on itself and holds up no other rollout.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	ro, err := r.load(ctx, req.Name)
	if ro == nil || err != nil {
		return reconcile.Result{}, err
	}
	r.Metrics.observe(ro)
	if done, err := r.settleFinalizer(ctx, ro); done || err != nil {
		return reconcile.Result{}, err
	}
	if holder, err := r.holder(ctx, ro); err != nil || holder != "" {
		if err != nil {
			return reconcile.Result{}, err
		}
		return r.wait(ctx, ro, holder)
	}
	return r.step(ctx, ro)
}

// load returns the rollout, or nil when it is gone or cannot be decoded
// (then it says so on the object).
func (r *Reconciler) load(ctx context.Context, name string) (*rolloutv1.NodeGroupRollout, error) {
	u := newUnstructuredRollout()
	if err := r.Client.Get(ctx, types.NamespacedName{Name: name}, u); err != nil {
		if apierrors.IsNotFound(err) {
			r.groups().forget(name)
			r.Metrics.forget(name)
		}
		return nil, client.IgnoreNotFound(err)
	}
	ro, err := decodeRollout(u)
	if err != nil {
		return nil, r.reportUndecodable(ctx, u, err)
	}
	return ro, nil
}

// step plans once, persists the status, carries out the actions and
// records what they reported.
func (r *Reconciler) step(ctx context.Context, ro *rolloutv1.NodeGroupRollout) (reconcile.Result, error) {
	log := logf.FromContext(ctx)
	if problem := plan.CheckStatus(ro, r.now()); problem != nil {
		return r.distrust(ctx, ro, problem)
	}
	group, err := r.Groups.Open(ctx, ro.Spec.NodeGroup)
	if err != nil {
		return reconcile.Result{}, r.reportBlocked(ctx, ro, err)
	}
	t0 := time.Now()
	var lookupErr error // of the pods the planner looks up
	snap, err := r.snapshot(ctx, ro, group, &lookupErr)
	if err != nil {
		r.Recorder.Event(ro, corev1.EventTypeWarning, "SnapshotFailed", err.Error())
		return reconcile.Result{}, r.reportBlocked(ctx, ro, err)
	}
	d := plan.Plan(snap)
	if lookupErr != nil {
		r.Recorder.Event(ro, corev1.EventTypeWarning, "SnapshotFailed", lookupErr.Error())
		return reconcile.Result{}, lookupErr
	}
	t1 := time.Now()
	prev := ro.Status.DeepCopy()
	if err := r.writeStatus(ctx, ro, d.Status); err != nil {
		if apierrors.IsConflict(err) {
			return reconcile.Result{RequeueAfter: conflictRetry}, nil
		}
		return reconcile.Result{}, err
	}
	r.Metrics.transitions(prev, &ro.Status)
	r.record(ro, d.Events)
	t2 := time.Now()
	actions, deferred := r.patchBudget(d.Actions)
	actErr := r.act(ctx, ro, group, actions)
	log.V(1).Info("planning step", "phase", ro.Status.Phase, "nodes", len(snap.Nodes), "actions", len(actions),
		"deferredPatches", deferred, "plan", t1.Sub(t0), "status", t2.Sub(t1), "act", time.Since(t2))
	r.Metrics.observe(ro)
	if actErr != nil {
		r.Recorder.Event(ro, corev1.EventTypeWarning, "ActionFailed", actErr.Error())
		return reconcile.Result{}, actErr
	}
	if _, err := r.settleFinalizer(ctx, ro); err != nil {
		return reconcile.Result{}, err
	}
	return r.requeue(ro, d, deferred > 0), nil
}

// distrust reports a status the controller does not act on
// (plan.CheckStatus) on the rollout, without opening its group: no Auto
// Scaling call, no action and no requeue. A change of the rollout, or of
// the Nodes and pods, plans it again.
func (r *Reconciler) distrust(ctx context.Context, ro *rolloutv1.NodeGroupRollout, problem error) (reconcile.Result, error) {
	logf.FromContext(ctx).Info("not acting on the rollout's status", "rollout", ro.Name, "problem", problem.Error())
	d := plan.Distrust(ro, r.now(), problem)
	if err := r.writeStatus(ctx, ro, d.Status); err != nil {
		if apierrors.IsConflict(err) {
			return reconcile.Result{RequeueAfter: conflictRetry}, nil
		}
		return reconcile.Result{}, err
	}
	r.record(ro, d.Events)
	return reconcile.Result{}, nil
}

// patchBudget keeps the first NodePatches node patches of actions, in the
// planner's order, and every other action; it returns how many patches it
// left for the next step. The cordon of a node whose evictions wait for it
// (Evict.AfterCordon) is always kept: at most a batch of them.
func (r *Reconciler) patchBudget(actions []plan.Action) ([]plan.Action, int) {
	budget := r.NodePatches
	if budget <= 0 {
		budget = DefaultNodePatches
	}
	chained := map[string]bool{}
	for _, a := range actions {
		if e, ok := a.(plan.Evict); ok && e.AfterCordon {
			chained[e.Node] = true
		}
	}
	kept, deferred := make([]plan.Action, 0, len(actions)), 0
	for _, a := range actions {
		switch a := a.(type) {
		case plan.MarkOld, plan.Cordon, plan.Release:
			if c, ok := a.(plan.Cordon); ok && chained[c.Node] {
				budget = max(budget-1, 0)
				break
			}
			if budget == 0 {
				deferred++
				continue
			}
			budget--
		}
		kept = append(kept, a)
	}
	return kept, deferred
}

// act carries out actions and records what they reported in the status.
func (r *Reconciler) act(ctx context.Context, ro *rolloutv1.NodeGroupRollout, group nodegroup.Group, actions []plan.Action) error {
	for _, a := range actions {
		logf.FromContext(ctx).V(1).Info("action", "action", a.String())
	}
	res, actErr := r.execute(ctx, ro.Name, group, actions)
	recorded := *ro.Status.DeepCopy()
	events := plan.Record(&recorded, res, r.now())
	if err := r.writeStatus(ctx, ro, recorded); err != nil && !apierrors.IsConflict(err) {
		return errors.Join(actErr, err)
	}
	r.record(ro, events)
	return actErr
}

// requeue says when to plan again: at the planner's deadline, right away
// when node patches were left for the next step (patchBudget), and at
// least every poll interval while the rollout is active. Everything else
// comes as a watch event: the status written, Nodes joining, leaving or
// changing, pods leaving.
func (r *Reconciler) requeue(ro *rolloutv1.NodeGroupRollout, d plan.Decision, deferred bool) reconcile.Result {
	switch ro.Status.Phase {
	case rolloutv1.PhaseSucceeded, rolloutv1.PhaseAborted, rolloutv1.PhaseFailed, rolloutv1.PhasePaused:
		return reconcile.Result{}
	}
	after := r.poll()
	if d.RequeueAfter > 0 {
		after = min(after, d.RequeueAfter)
	}
	if deferred {
		after = min(after, deferredPatchRetry)
	}
	return reconcile.Result{RequeueAfter: after}
}

// writeStatus updates the status subresource when it changed; ro gets the
// written object.
func (r *Reconciler) writeStatus(ctx context.Context, ro *rolloutv1.NodeGroupRollout, st rolloutv1.NodeGroupRolloutStatus) error {
	if apiequality.Semantic.DeepEqual(ro.Status, st) {
		return nil
	}
	ro.Status = st
	if err := r.Client.Status().Update(ctx, ro); err != nil {
		return fmt.Errorf("update status of %s: %w", ro.Name, err)
	}
	return nil
}

func (r *Reconciler) record(ro *rolloutv1.NodeGroupRollout, events []plan.Event) {
	for _, e := range events {
		kind := corev1.EventTypeNormal
		if e.Warning {
			kind = corev1.EventTypeWarning
		}
		r.Recorder.Event(ro, kind, e.Reason, e.Message)
	}
}
