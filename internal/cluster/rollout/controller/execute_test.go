package controller

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

// TestExecuteEvictsBesideTheCordons: with one worker, an eviction does not
// wait behind a cordon of another node: the cordon's patch here is held
// until the eviction has been sent (a hang guard ends the wait otherwise,
// and the cordon then fails).
func TestExecuteEvictsBesideTheCordons(t *testing.T) {
	evicted := make(chan struct{})
	c := interceptor.NewClient(
		fake.NewClientBuilder().WithScheme(newScheme(t)).WithObjects(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "other-1"}}).Build(),
		interceptor.Funcs{
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				select {
				case <-evicted:
					return c.Patch(ctx, obj, patch, opts...)
				case <-time.After(time.Minute):
					return errors.New("the eviction never came while the cordon was held")
				}
			},
			SubResourceCreate: func(context.Context, client.Client, string, client.Object, client.Object, ...client.SubResourceCreateOption) error {
				close(evicted)
				return nil
			},
		})
	r := &Reconciler{Client: c, Workers: 1}
	actions := []plan.Action{plan.Cordon{Node: "other-1"}, plan.Evict{Node: "node-0", Pods: []plan.PodRef{pod("web-0", "default/web")}}}
	res, err := r.execute(t.Context(), "r1", nil, actions)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Evictions) != 1 || res.Evictions[0].Reason != "" {
		t.Fatalf("evictions = %+v, want one done", res.Evictions)
	}
	n := &corev1.Node{}
	if err := c.Get(t.Context(), client.ObjectKey{Name: "other-1"}, n); err != nil || !n.Spec.Unschedulable {
		t.Fatalf("node other-1 unschedulable = %v (%v), want cordoned", n.Spec.Unschedulable, err)
	}
}

// TestExecuteEvictsAfterTheNodesCordon: a node cordoned and drained in one
// step (Evict.AfterCordon) has its evictions sent once its cordon is done,
// and none when the cordon failed (the next step tries again).
func TestExecuteEvictsAfterTheNodesCordon(t *testing.T) {
	tests := []struct {
		name      string
		patchErr  error
		wantOrder []string
		wantSent  bool
	}{
		{name: "cordon done", wantOrder: []string{"patch node-0", "evict web-0"}, wantSent: true},
		{name: "cordon failed", patchErr: errors.New("conflict"), wantOrder: []string{"patch node-0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var order []string
			note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
			c := interceptor.NewClient(
				fake.NewClientBuilder().WithScheme(newScheme(t)).WithObjects(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-0"}}).Build(),
				interceptor.Funcs{
					Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
						time.Sleep(20 * time.Millisecond) // the eviction's worker is free meanwhile
						note("patch " + obj.GetName())
						if tc.patchErr != nil {
							return tc.patchErr
						}
						return c.Patch(ctx, obj, patch, opts...)
					},
					SubResourceCreate: func(_ context.Context, _ client.Client, _ string, obj client.Object, _ client.Object, _ ...client.SubResourceCreateOption) error {
						note("evict " + obj.GetName())
						return nil
					},
				})
			r := &Reconciler{Client: c, Workers: 4}
			actions := []plan.Action{plan.Cordon{Node: "node-0"}, plan.Evict{Node: "node-0", Pods: []plan.PodRef{pod("web-0", "default/web")}, AfterCordon: true}}
			res, _ := r.execute(t.Context(), "r1", nil, actions)
			if !slices.Equal(order, tc.wantOrder) {
				t.Errorf("requests %q, want %q", order, tc.wantOrder)
			}
			if len(res.Evictions) != 1 || res.Evictions[0].NotSent == tc.wantSent {
				t.Errorf("evictions %+v, want one, sent %t", res.Evictions, tc.wantSent)
			}
		})
	}
}

// TestExecuteEvictsAfterTheBatchsCordons: the evictions of a node cordoned
// and drained in one step wait for every such cordon of the step, so that
// the pods they displace cannot land on a batch node not cordoned yet.
func TestExecuteEvictsAfterTheBatchsCordons(t *testing.T) {
	var mu sync.Mutex
	var order []string
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	nodes := []client.Object{&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "fast"}}, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "slow"}}}
	c := interceptor.NewClient(
		fake.NewClientBuilder().WithScheme(newScheme(t)).WithObjects(nodes...).Build(),
		interceptor.Funcs{
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				if obj.GetName() == "slow" {
					time.Sleep(50 * time.Millisecond)
				}
				note("patch " + obj.GetName())
				return c.Patch(ctx, obj, patch, opts...)
			},
			SubResourceCreate: func(_ context.Context, _ client.Client, _ string, obj client.Object, _ client.Object, _ ...client.SubResourceCreateOption) error {
				note("evict " + obj.GetName())
				return nil
			},
		})
	r := &Reconciler{Client: c, Workers: 4}
	actions := []plan.Action{
		plan.Cordon{Node: "fast"}, plan.Cordon{Node: "slow"},
		plan.Evict{Node: "fast", Pods: []plan.PodRef{pod("web-0", "default/web")}, AfterCordon: true},
		plan.Evict{Node: "slow", Pods: []plan.PodRef{pod("web-1", "default/web")}, AfterCordon: true},
	}
	if _, err := r.execute(t.Context(), "r1", nil, actions); err != nil {
		t.Fatal(err)
	}
	if len(order) != 4 || !slices.Equal(order[:2], []string{"patch fast", "patch slow"}) {
		t.Errorf("requests %q, want both cordons before any eviction", order)
	}
}
