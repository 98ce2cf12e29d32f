package plan

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
)

// setConditions derives the standard conditions from the phase: Ready once
// the rollout succeeded, Progressing while the controller moves it on,
// Degraded when it failed. A condition's transition time moves only when
// its status changes.
func setConditions(st *rolloutv1.NodeGroupRolloutStatus, generation int64, now metav1.Time) {
	for _, c := range phaseConditions(st) {
		c.ObservedGeneration, c.LastTransitionTime = generation, now
		meta.SetStatusCondition(&st.Conditions, c)
	}
}

// phaseConditions are the three conditions of st's phase.
func phaseConditions(st *rolloutv1.NodeGroupRolloutStatus) []metav1.Condition {
	reason := string(st.Phase)
	if st.Phase == "" {
		reason = rolloutv1.ReasonPending
	}
	ready := metav1.Condition{Type: rolloutv1.ConditionReady, Status: metav1.ConditionFalse, Reason: reason, Message: st.Message}
	progressing := metav1.Condition{Type: rolloutv1.ConditionProgressing, Status: metav1.ConditionFalse, Reason: reason, Message: st.Message}
	degraded := metav1.Condition{Type: rolloutv1.ConditionDegraded, Status: metav1.ConditionFalse, Reason: rolloutv1.ReasonAsExpected}
	switch st.Phase {
	case rolloutv1.PhaseSucceeded:
		ready.Status = metav1.ConditionTrue
	case rolloutv1.PhaseInitializing, rolloutv1.PhaseScalingUp, rolloutv1.PhaseUpgrading, rolloutv1.PhaseScalingDown, rolloutv1.PhaseAborting:
		progressing.Status = metav1.ConditionTrue
	case rolloutv1.PhaseFailed:
		if st.Failure != nil {
			degraded.Reason, degraded.Message = string(st.Failure.Code), st.Failure.Message
		}
		degraded.Status = metav1.ConditionTrue
		ready.Reason, progressing.Reason = degraded.Reason, degraded.Reason
	}
	return []metav1.Condition{ready, progressing, degraded}
}

// InvalidObjectConditions are the conditions of a rollout the controller
// cannot decode: not ready, not progressing, degraded with why.
func InvalidObjectConditions(message string, now metav1.Time) []metav1.Condition {
	return degradedConditions(rolloutv1.ReasonInvalidObject, message, now)
}

// degradedConditions are the conditions of a rollout held up for reason:
// Ready and Progressing False, Degraded True, all with reason and message.
func degradedConditions(reason, message string, now metav1.Time) []metav1.Condition {
	var out []metav1.Condition
	for _, c := range []metav1.Condition{
		{Type: rolloutv1.ConditionReady, Status: metav1.ConditionFalse},
		{Type: rolloutv1.ConditionProgressing, Status: metav1.ConditionFalse},
		{Type: rolloutv1.ConditionDegraded, Status: metav1.ConditionTrue},
	} {
		c.Reason, c.Message, c.LastTransitionTime = reason, message, now
		out = append(out, c)
	}
	return out
}

// BlockedConditions are the conditions of an abort that cannot go on:
// not ready, not progressing, degraded with why.
func BlockedConditions(message string, now metav1.Time) []metav1.Condition {
	return degradedConditions(rolloutv1.ReasonAbortBlocked, message, now)
}
