//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// evictionFloor is what one batch's evictions cost on this control plane
// without the controller: the harness itself evicts as many pods of the
// benchmark's budget as one batch holds, at a given concurrency, with the
// controller's identity (its API priority and fairness level) and rate
// limit, and times the API server's answers and the pods' departure.
type evictionFloor struct {
	Concurrency int
	Pods        int
	// Answered: first request sent → last answer; Gone: → last pod deleted.
	Answered, Gone string
	// Refused counts answers other than success (the budget had no
	// disruption left; such a pod is asked again until it goes).
	Refused int
	// PerSecond is Pods / Answered.
	PerSecond      float64
	answered, gone time.Duration
	// started is when the first eviction was sent.
	started time.Time
}

// measureEvictionFloor evicts n Ready pods of the Deployment wl (whose
// budget allows n disruptions) through evictor with the given concurrency,
// retrying refused ones as a drain does, and waits until they are gone and
// the workload is whole again.
func (w *rolloutWorld) measureEvictionFloor(t *testing.T, evictor client.Client, ns string, wl workload, n, concurrency int) evictionFloor {
	t.Helper()
	ctx := t.Context()
	var pods corev1.PodList
	if err := w.client.List(ctx, &pods, client.InNamespace(ns), client.MatchingLabels{"app": wl.name}); err != nil {
		t.Fatal(err)
	}
	var victims []corev1.Pod
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning {
			victims = append(victims, p)
		}
	}
	sort.Slice(victims, func(i, j int) bool { return victims[i].Name < victims[j].Name })
	if len(victims) < n {
		t.Fatalf("%d running pods of %s, want %d", len(victims), wl.name, n)
	}
	victims = victims[:n]

	var (
		mu      sync.Mutex
		refused int
		wg      sync.WaitGroup
	)
	sem := make(chan struct{}, concurrency)
	start := time.Now()
	for _, p := range victims {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			for ctx.Err() == nil {
				err := evict(ctx, evictor, p)
				if err == nil || apierrors.IsNotFound(err) {
					return
				}
				mu.Lock()
				refused++
				mu.Unlock()
				time.Sleep(100 * time.Millisecond) // a drain's pause before it asks again
			}
		}()
	}
	wg.Wait()
	answered := time.Since(start)
	err := waitUntil(ctx, "evicted pods gone", 5*time.Minute, 50*time.Millisecond, w.c.procs.procs, func(ctx context.Context) (bool, string, error) {
		for _, p := range victims {
			var cur corev1.Pod
			err := w.client.Get(ctx, client.ObjectKeyFromObject(&p), &cur)
			if err == nil && cur.UID == p.UID {
				return false, p.Name + " still there", nil
			}
			if err != nil && !apierrors.IsNotFound(err) {
				return false, err.Error(), nil
			}
		}
		return true, "", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	gone := time.Since(start)
	w.waitWorkloads(t, ns, []workload{wl}, 5*time.Minute)
	return evictionFloor{Concurrency: concurrency, Pods: n, Answered: answered.Round(time.Millisecond).String(),
		Gone: gone.Round(time.Millisecond).String(), Refused: refused, PerSecond: float64(n) / answered.Seconds(), answered: answered, gone: gone, started: start}
}

// evict asks the Eviction API through c to evict p (that very pod: UID
// precondition).
func evict(ctx context.Context, c client.Client, p corev1.Pod) error {
	uid := p.UID
	ev := &policyv1.Eviction{
		ObjectMeta:    metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name},
		DeleteOptions: &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}},
	}
	if err := c.SubResource("eviction").Create(ctx, &p, ev); err != nil {
		return fmt.Errorf("evict %s/%s: %w", p.Namespace, p.Name, err)
	}
	return nil
}
