package controller

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

func pod(name string, budgets ...string) plan.PodRef {
	return plan.PodRef{Namespace: "default", Name: name, PodDisruptionBudgets: budgets}
}

func TestBudgetKey(t *testing.T) {
	tests := []struct {
		name string
		pod  plan.PodRef
		want string
	}{
		{name: "no budget", pod: pod("a"), want: ""},
		{name: "one budget", pod: pod("a", "default/web"), want: "default/web"},
		{name: "a set, in any order", pod: pod("a", "default/y", "default/x"), want: "default/x,default/y"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := budgetKey(tc.pod); got != tc.want {
				t.Errorf("budgetKey = %q, want %q", got, tc.want)
			}
		})
	}
}

// evictionRecorder answers evictions like the API server would for one
// budget with allowed disruptions left, and records how many of the
// budget's evictions were in flight at once.
type evictionRecorder struct {
	mu                sync.Mutex
	allowed           int
	inFlight, maxSeen int
	sent              []string
}

func (e *evictionRecorder) create(ctx context.Context, c client.Client, sub string, obj, subObj client.Object, opts ...client.SubResourceCreateOption) error {
	if sub != "eviction" {
		return fmt.Errorf("unexpected subresource %s", sub)
	}
	guarded := strings.HasPrefix(obj.GetName(), "web") // the budget's pods
	e.mu.Lock()
	e.sent = append(e.sent, obj.GetName())
	allowed := !guarded || e.allowed > 0
	if guarded {
		e.inFlight++
		e.maxSeen = max(e.maxSeen, e.inFlight)
		if allowed {
			e.allowed--
		}
	}
	e.mu.Unlock()
	if guarded {
		// Stay in flight a moment, as a real request does, so that
		// evictions sent in parallel would overlap.
		time.Sleep(time.Millisecond)
		defer func() { e.mu.Lock(); e.inFlight--; e.mu.Unlock() }()
	}
	if !allowed {
		err := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
		err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: policyv1.DisruptionBudgetCause, Message: "The disruption budget web needs 10 healthy pods and has 10 currently"}}
		return err
	}
	return nil
}

// evictingReconciler returns a Reconciler with workers whose evictions a
// recorder answers, allowing that many of the budget's.
func evictingReconciler(t *testing.T, allowed, workers int) (*Reconciler, *evictionRecorder) {
	rec := &evictionRecorder{allowed: allowed}
	c := interceptor.NewClient(fake.NewClientBuilder().WithScheme(newScheme(t)).Build(), interceptor.Funcs{SubResourceCreate: rec.create})
	return &Reconciler{Client: c, Workers: workers}, rec
}

// TestExecuteStopsAskingARefusingBudget: once a budget refuses an eviction,
// the pods of that budget not yet sent in the same step are not sent; pods
// of no budget still are. One worker makes the order, and so the counts,
// deterministic.
func TestExecuteStopsAskingARefusingBudget(t *testing.T) {
	r, rec := evictingReconciler(t, 12, 1)
	var actions []plan.Action
	for n := range 10 {
		node := fmt.Sprintf("node-%d", n)
		actions = append(actions, plan.Evict{Node: node, Pods: []plan.PodRef{
			pod(fmt.Sprintf("web-%d-a", n), "default/web"), pod(fmt.Sprintf("web-%d-b", n), "default/web"), pod(fmt.Sprintf("solo-%d", n)),
		}})
	}
	res, err := r.execute(t.Context(), "r1", nil, actions)
	if err != nil {
		t.Fatal(err)
	}
	evicted, refused, notSent := 0, 0, 0
	for _, er := range res.Evictions {
		switch {
		case er.Reason == "":
			evicted++
		case er.NotSent && er.Reason == rolloutv1.BlockedByPDB && strings.Contains(er.Message, "not sent: the budget refused default/web-6-a"):
			notSent++
		case er.Reason == rolloutv1.BlockedByPDB:
			refused++
		default:
			t.Errorf("unexpected result %+v", er)
		}
		if er.Reason != "" && (len(er.PodDisruptionBudgets) != 1 || !strings.Contains(er.Message, "needs 10 healthy pods")) {
			t.Errorf("refusal %+v does not name the budget and its message", er)
		}
	}
	// 10 solo pods and 12 of the budget's 20 are evicted; the 13th
	// (web-6-a) is refused; the 7 after it are not sent.
	if evicted != 22 || refused != 1 || notSent != 7 || len(rec.sent) != 23 {
		t.Errorf("evicted %d, refused %d, not sent %d, requests %d; want 22, 1, 7, 23", evicted, refused, notSent, len(rec.sent))
	}
}

// TestExecuteEvictsInParallel: evictions of one budget go side by side
// (the API server answers them faster so), whatever refusals follow.
func TestExecuteEvictsInParallel(t *testing.T) {
	r, rec := evictingReconciler(t, 1000, 8)
	var pods []plan.PodRef
	for i := range 40 {
		pods = append(pods, pod(fmt.Sprintf("web-%d", i), "default/web"))
	}
	res, err := r.execute(t.Context(), "r1", nil, []plan.Action{plan.Evict{Node: "node-0", Pods: pods}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Evictions) != 40 || len(rec.sent) != 40 {
		t.Fatalf("%d results, %d requests; want 40 each", len(res.Evictions), len(rec.sent))
	}
	if rec.maxSeen < 2 {
		t.Errorf("at most %d evictions in flight at once, want them side by side", rec.maxSeen)
	}
}

// TestExecuteStillAsksForUnhealthyPods: a budget's refusal of a healthy
// pod says nothing about a pod of it that is not Running and Ready: the
// Eviction API lets Pending pods go whatever the budget, and not-Ready ones
// under unhealthyPodEvictionPolicy AlwaysAllow or while the budget has its
// healthy pods (IfHealthyBudget, the default). Evicting such a pod is often
// what would free the budget for the others; queued behind a refusal in
// every step, it never went.
func TestExecuteStillAsksForUnhealthyPods(t *testing.T) {
	r, rec := evictingReconciler(t, 0, 1)
	crashing := pod("web-crashing", "default/web")
	crashing.Unhealthy = true
	actions := []plan.Action{plan.Evict{Node: "node-0", Pods: []plan.PodRef{pod("web-ready", "default/web"), crashing}}}
	res, err := r.execute(t.Context(), "r1", nil, actions)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.sent) != 2 {
		t.Errorf("requests %v, want both pods asked for", rec.sent)
	}
	for _, er := range res.Evictions {
		if er.NotSent {
			t.Errorf("%s not sent: %s", er.Pod, er.Message)
		}
	}
}
