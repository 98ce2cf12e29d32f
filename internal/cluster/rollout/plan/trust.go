package plan

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
)

// The status is the rollout's whole state, and anyone allowed to write the
// status subresource (kubectl edit --subresource=status), an older
// controller or a bug can leave one the controller never writes. Acted on,
// such a status can do harm: a target version the group does not launch
// replaces every node again and again, a drain deadline or a pause start
// in the past deletes pods past their budgets at once (force), a missing
// deadline or target panics, maxUnavailable 0 starts an empty batch on
// every step. CheckStatus names what the controller's own writes never
// produce; a status with any of it is reported and not acted on.

// clockSlack is how far a time in the status may lie ahead of the
// planner's clock, or before the rollout was created, and still be one
// the controller wrote: replicas' clocks differ by seconds, not an hour.
const clockSlack = time.Hour

// maxTimeout is the longest timeout the CRD accepts: the furthest a
// deadline the controller sets lies ahead.
const maxTimeout = 168 * time.Hour

// maxProblems bounds how many problems a report lists.
const maxProblems = 5

// CheckStatus reports what in the rollout's status the controller cannot
// have written and must not act on, or nil. A finished rollout is not
// checked: nothing is done for it.
func CheckStatus(ro *rolloutv1.NodeGroupRollout, now time.Time) error {
	st := &ro.Status
	if st.Phase.Terminal() {
		return nil
	}
	active := activePhase(st)
	var problems []string
	problems = append(problems, phaseProblems(ro)...)
	problems = append(problems, countProblems(st, active)...)
	problems = append(problems, recordProblems(st, active)...)
	for i := range st.Nodes {
		problems = append(problems, nodeProblems(st, active, &st.Nodes[i])...)
	}
	problems = append(problems, timeProblems(ro, now)...)
	if len(problems) == 0 {
		return nil
	}
	if len(problems) > maxProblems {
		problems = append(problems[:maxProblems], fmt.Sprintf("and %d more", len(problems)-maxProblems))
	}
	return errors.New(strings.Join(problems, "; "))
}

// activePhase is the phase the rollout works in: the one a paused or
// failed rollout resumes to.
func activePhase(st *rolloutv1.NodeGroupRolloutStatus) rolloutv1.Phase {
	if st.Phase == rolloutv1.PhasePaused || st.Phase == rolloutv1.PhaseFailed {
		return st.ResumePhase
	}
	return st.Phase
}

// phaseProblems checks the phase against resumePhase and the spec.
func phaseProblems(ro *rolloutv1.NodeGroupRollout) []string {
	st := &ro.Status
	var out []string
	switch st.ResumePhase {
	case "", rolloutv1.PhaseInitializing, rolloutv1.PhaseScalingUp, rolloutv1.PhaseUpgrading, rolloutv1.PhaseScalingDown, rolloutv1.PhaseAborting:
	default:
		out = append(out, fmt.Sprintf("status.resumePhase %s is no phase a rollout resumes to", st.ResumePhase))
	}
	if st.ResumePhase != "" && st.Phase != rolloutv1.PhasePaused && st.Phase != rolloutv1.PhaseFailed {
		out = append(out, fmt.Sprintf("status.resumePhase %s with status.phase %s (only a paused or failed rollout has one)", st.ResumePhase, st.Phase))
	}
	if activePhase(st) == rolloutv1.PhaseAborting && !ro.Spec.Abort && ro.DeletionTimestamp == nil {
		out = append(out, "status.phase Aborting without spec.abort (an abort cannot be undone: only spec.abort or a deletion starts one)")
	}
	return out
}

// hasStarted reports whether the phase comes after Initializing (which
// records the group, the target and maxUnavailable).
func hasStarted(p rolloutv1.Phase) bool {
	return p == rolloutv1.PhaseScalingUp || p == rolloutv1.PhaseUpgrading || p == rolloutv1.PhaseScalingDown
}

// countProblems checks the counts the planner computes with.
func countProblems(st *rolloutv1.NodeGroupRolloutStatus, active rolloutv1.Phase) []string {
	var out []string
	if st.MaxUnavailable < 0 || st.MaxUnavailable > MaxUnavailableCap {
		out = append(out, fmt.Sprintf("status.maxUnavailable %d is not from 1 to %d", st.MaxUnavailable, MaxUnavailableCap))
	} else if st.MaxUnavailable == 0 && hasStarted(active) {
		out = append(out, fmt.Sprintf("status.maxUnavailable 0 in phase %s (it is resolved to 1..%d when the rollout starts)", active, MaxUnavailableCap))
	}
	if st.Surge < 0 || st.Surge > MaxUnavailableCap {
		out = append(out, fmt.Sprintf("status.surge %d is not from 0 to %d", st.Surge, MaxUnavailableCap))
	}
	if st.Batch < 0 {
		out = append(out, fmt.Sprintf("status.batch %d is below 0", st.Batch))
	}
	return out
}

// recordProblems checks what Initializing records: the group's settings
// and the target.
func recordProblems(st *rolloutv1.NodeGroupRolloutStatus, active rolloutv1.Phase) []string {
	var out []string
	if hasStarted(active) && st.Original == nil {
		out = append(out, fmt.Sprintf("status.original is missing in phase %s", active))
	}
	if hasStarted(active) && st.Target == nil {
		out = append(out, fmt.Sprintf("status.target is missing in phase %s", active))
	}
	if t := st.Target; t != nil && (t.ID == "" || !nodegroup.IsVersionNumber(t.Version)) {
		out = append(out, fmt.Sprintf("status.target is launch template %q version %q, not a template and a version number", t.ID, t.Version))
	}
	if o := st.Original; o != nil && (o.MinSize < 0 || o.MinSize > o.DesiredCapacity || o.DesiredCapacity > o.MaxSize) {
		out = append(out, fmt.Sprintf("status.original sizes min %d, desired %d, max %d are not 0 <= min <= desired <= max", o.MinSize, o.DesiredCapacity, o.MaxSize))
	}
	return out
}

// nodeProblems checks one picked node: its batch, and the time its step
// waits from.
func nodeProblems(st *rolloutv1.NodeGroupRolloutStatus, active rolloutv1.Phase, p *rolloutv1.NodeProgress) []string {
	var out []string
	where := fmt.Sprintf("status.nodes[%s]", p.InstanceID)
	switch {
	case p.Batch < 0 || p.Batch > st.Batch:
		out = append(out, fmt.Sprintf("%s.batch %d is not from 0 to status.batch %d", where, p.Batch, st.Batch))
	case p.Batch == abortBatch && active != rolloutv1.PhaseAborting:
		out = append(out, fmt.Sprintf("%s.batch 0 (the abort's surplus nodes) in phase %s", where, active))
	}
	missing := ""
	switch {
	case p.Step == rolloutv1.StepDraining && p.DrainDeadline == nil:
		missing = "drainDeadline"
	case p.Step == rolloutv1.StepWaitingAfterDrain && p.DrainedTime == nil:
		missing = "drainedTime"
	case p.Step == rolloutv1.StepTerminating && p.TerminationTime == nil:
		missing = "terminationTime"
	}
	if missing != "" {
		out = append(out, fmt.Sprintf("%s is %s without %s", where, p.Step, missing))
	}
	return out
}

// stamp is a time of the status and the furthest ahead it may lie.
type stamp struct {
	field string
	t     *metav1.Time
	ahead time.Duration
}

// timeProblems checks every time of the status the planner waits from or
// for: none lies before the rollout was created, none further ahead than
// the controller sets it (a deadline: the longest drain timeout).
func timeProblems(ro *rolloutv1.NodeGroupRollout, now time.Time) []string {
	var out []string
	created := ro.CreationTimestamp.Time
	for _, s := range stampsOf(ro) {
		switch {
		case s.t == nil:
		case s.t.After(now.Add(s.ahead + clockSlack)):
			out = append(out, fmt.Sprintf("%s %s lies ahead of the controller's clock by more than %s", s.field, s.t.UTC().Format(time.RFC3339), s.ahead+clockSlack))
		case !created.IsZero() && s.t.Time.Before(created.Add(-clockSlack)):
			out = append(out, fmt.Sprintf("%s %s is before the rollout was created (%s)", s.field, s.t.UTC().Format(time.RFC3339), created.UTC().Format(time.RFC3339)))
		}
	}
	return out
}

// stampsOf lists the times of the status.
func stampsOf(ro *rolloutv1.NodeGroupRollout) []stamp {
	st := &ro.Status
	deadline := max(maxTimeout, SettingsOf(ro.Spec).DrainTimeout)
	out := []stamp{{"status.startTime", st.StartTime, 0}, {"status.pausedTime", st.PausedTime, 0}, {"status.waitingSince", st.WaitingSince, 0}}
	for _, p := range st.Nodes {
		where := "status.nodes[" + p.InstanceID + "]."
		out = append(out, stamp{where + "drainStartTime", p.DrainStartTime, 0}, stamp{where + "drainDeadline", p.DrainDeadline, deadline},
			stamp{where + "lastEvictionTime", p.LastEvictionTime, 0}, stamp{where + "drainedTime", p.DrainedTime, 0},
			stamp{where + "terminationTime", p.TerminationTime, 0})
	}
	return out
}

// Distrust is the decision on a rollout whose status CheckStatus refuses
// (problem): no action; the status unchanged but for the message and the
// conditions (Degraded, InvalidStatus), and a Warning Event when the report
// is new.
func Distrust(ro *rolloutv1.NodeGroupRollout, now time.Time, problem error) Decision {
	d := Decision{Status: *ro.Status.DeepCopy()}
	st := &d.Status
	msg := "the controller does not act on this status, which it cannot have written: " + problem.Error() +
		"; fix it (kubectl edit ngr " + ro.Name + " --subresource=status) or delete the rollout (nothing is undone then)"
	if st.Message != msg {
		d.Events = append(d.Events, Event{Warning: true, Reason: rolloutv1.ReasonInvalidStatus, Message: msg})
	}
	st.Message = msg
	for _, c := range degradedConditions(rolloutv1.ReasonInvalidStatus, msg, metav1.NewTime(now)) {
		c.ObservedGeneration = ro.Generation
		meta.SetStatusCondition(&st.Conditions, c)
	}
	return d
}
