package controller

import (
	"context"
	"slices"
	"strings"
	"sync"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

// An eviction is one pod to evict, with the node it is drained from.
type eviction struct {
	node string
	pod  plan.PodRef
}

// budgetKey names the set of budgets that guard a pod ("" for none).
func budgetKey(p plan.PodRef) string {
	if len(p.PodDisruptionBudgets) < 2 {
		return strings.Join(p.PodDisruptionBudgets, "")
	}
	budgets := slices.Clone(p.PodDisruptionBudgets)
	slices.Sort(budgets)
	return strings.Join(budgets, ",")
}

// refusals remembers, within one planning step, the budgets that refused
// an eviction. Evictions run in parallel (the API server answers those of
// one budget faster side by side: it retries the budget's status write
// after a conflict in 500 ms steps, so evictions sent one after another
// mostly wait), but once a budget has said no, the evictions of its pods
// not yet sent get the same answer without a request: the budget has no
// disruption left until the disruption controller counts replacements
// Ready, and with a zero eviction retry interval every planning step would
// otherwise send one request per blocked pod.
type refusals struct {
	mu sync.Mutex
	by map[string]plan.EvictionResult
}

// evictOnce evicts one pod unless its budgets refused another pod this step.
func (r *Reconciler) evictOnce(ctx context.Context, e eviction, seen *refusals) plan.EvictionResult {
	key := budgetKey(e.pod)
	if key != "" {
		seen.mu.Lock()
		by, refused := seen.by[key]
		seen.mu.Unlock()
		if refused {
			return notSent(e, by)
		}
	}
	res := ClassifyEviction(e.node, e.pod, r.evict(ctx, e.pod))
	r.Metrics.action(plan.Evict{}, nil) // a refusal is an answer, not a failure
	r.Metrics.eviction(res)
	if key != "" && res.Reason == rolloutv1.BlockedByPDB {
		seen.mu.Lock()
		if seen.by == nil {
			seen.by = map[string]plan.EvictionResult{}
		}
		if _, ok := seen.by[key]; !ok {
			seen.by[key] = res
		}
		seen.mu.Unlock()
	}
	return res
}

// notSent is the result of an eviction not sent because its budget refused
// another pod in the same step.
func notSent(e eviction, by plan.EvictionResult) plan.EvictionResult {
	return plan.EvictionResult{
		Node: e.node, Pod: e.pod, Reason: by.Reason, PodDisruptionBudgets: e.pod.PodDisruptionBudgets, NotSent: true,
		Message: by.Message + " (not sent: the budget refused " + by.Pod.String() + " in this step)",
	}
}
