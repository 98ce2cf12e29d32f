package controller

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	logf "sigs.k8s.io/controller-runtime/pkg/log"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

// An eviction is one pod to evict, with the node it is drained from.
type eviction struct {
	node string
	pod  plan.PodRef
	// afterCordon: sent once the node's cordon in the step is done.
	afterCordon bool
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

// evictOnce evicts one pod unless its budgets refused another pod this
// step and it is healthy (an unhealthy pod may go all the same).
func (r *Reconciler) evictOnce(ctx context.Context, e eviction, seen *refusals) plan.EvictionResult {
	key := budgetKey(e.pod)
	if key != "" && !e.pod.Unhealthy {
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

// evictionTiming follows one planning step's eviction requests, for the
// debug log: how many went out and were refused, how long the API server
// took from the first request to the last answer, and the slowest answer.
// (The Eviction API retries a budget's status write after a conflict in
// 500 ms steps, so these show what a drain waits for; docs/performance.md.)
type evictionTiming struct {
	mu            sync.Mutex
	sent, refused int
	first, last   time.Time
	slowest       time.Duration
}

// answered records one request sent at sent; an eviction not sent (its
// budget refused another in this step) is not a request.
func (t *evictionTiming) answered(sent time.Time, res plan.EvictionResult) {
	if res.NotSent {
		return
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sent++
	if res.Reason != "" {
		t.refused++
	}
	if t.first.IsZero() || sent.Before(t.first) {
		t.first = sent
	}
	t.last = later(t.last, now)
	t.slowest = max(t.slowest, now.Sub(sent))
}

// log writes the step's figures at debug level, when it sent evictions.
func (t *evictionTiming) log(ctx context.Context) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sent == 0 {
		return
	}
	logf.FromContext(ctx).V(1).Info("evictions answered", "sent", t.sent, "refused", t.refused,
		"firstToLast", t.last.Sub(t.first), "slowest", t.slowest)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
