//go:build e2e

package e2e

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

// benchWatch follows a benchmark rollout from the outside at millisecond
// resolution (the status has whole seconds): when each Node was first seen
// Ready, and when each batch was seen picked, drained (no node of it still
// draining), terminating and terminated. With the instances' InService
// times from the world it splits every wait between batches into the
// world's part (launch, the Node's registration, kwok making it Ready) and
// the controller's reaction.
type benchWatch struct {
	mu    sync.Mutex
	ready map[string]time.Time
	// batch → when first seen in that state.
	picked, drained, terminating, terminated map[int32]time.Time
}

// watchBench starts following the world's Nodes and the rollout named.
func (w *rolloutWorld) watchBench(t *testing.T, rollout string) *benchWatch {
	t.Helper()
	bw := &benchWatch{ready: map[string]time.Time{}, picked: map[int32]time.Time{}, drained: map[int32]time.Time{},
		terminating: map[int32]time.Time{}, terminated: map[int32]time.Time{}}
	cs, cfg := w.adminClientset(t)
	factory := informers.NewSharedInformerFactory(cs, 0)
	inf := factory.Core().V1().Nodes().Informer()
	seen := func(obj any) {
		if n, ok := obj.(*corev1.Node); ok && plan.NodeReady(n) {
			bw.nodeReady(n.Name, time.Now())
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: seen, UpdateFunc: func(_, obj any) { seen(obj) }}); err != nil {
		t.Fatal(err)
	}
	factory.Start(t.Context().Done())
	if !cache.WaitForCacheSync(t.Context().Done(), inf.HasSynced) {
		t.Fatal("node informer did not sync")
	}
	wc, err := client.NewWithWatch(cfg, client.Options{Scheme: w.client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	watcher, err := wc.Watch(t.Context(), &rolloutv1.NodeGroupRolloutList{}, client.MatchingFields{"metadata.name": rollout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(watcher.Stop)
	go func() {
		for ev := range watcher.ResultChan() {
			if ro, ok := ev.Object.(*rolloutv1.NodeGroupRollout); ok {
				bw.rollout(ro, time.Now())
			}
		}
	}()
	return bw
}

func (bw *benchWatch) nodeReady(name string, at time.Time) {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	if _, ok := bw.ready[name]; !ok {
		bw.ready[name] = at
	}
}

// rollout records the batches' states first seen in a status. The status
// lists the nodes in flight and drops a replaced node once its instance
// left the group: a batch seen before and now absent is terminated.
func (bw *benchWatch) rollout(ro *rolloutv1.NodeGroupRollout, at time.Time) {
	type count struct{ draining, waiting, terminating int }
	counts := map[int32]*count{}
	for _, p := range ro.Status.Nodes {
		c := counts[p.Batch]
		if c == nil {
			c = &count{}
			counts[p.Batch] = c
		}
		switch p.Step {
		case rolloutv1.StepDraining:
			c.draining++
		case rolloutv1.StepWaitingAfterDrain:
			c.waiting++
		case rolloutv1.StepTerminating:
			c.terminating++
		}
	}
	bw.mu.Lock()
	defer bw.mu.Unlock()
	for b := range bw.picked {
		if counts[b] == nil {
			counts[b] = &count{}
		}
	}
	first := func(m map[int32]time.Time, b int32) {
		if _, ok := m[b]; !ok {
			m[b] = at
		}
	}
	for b, c := range counts {
		first(bw.picked, b)
		if c.draining == 0 {
			first(bw.drained, b)
		}
		if c.draining+c.waiting == 0 {
			first(bw.terminating, b)
		}
		if c.draining+c.waiting+c.terminating == 0 {
			first(bw.terminated, b)
		}
	}
}

// drains returns every batch's drain as seen: picked → drained.
func (bw *benchWatch) drains() [][2]time.Time {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	var out [][2]time.Time
	for b, picked := range bw.picked {
		if drained, ok := bw.drained[b]; ok {
			out = append(out, [2]time.Time{picked, drained})
		}
	}
	return out
}

// benchWave is one wait for new capacity: the surge's (batch 0) or the
// back-fill of a batch's terminations, before the next batch was picked.
type benchWave struct {
	// Launched is when the wave's last instance was launched (its
	// InService time less the launch delay), InService when it entered
	// service, Ready when the wave's last Node was seen Ready, Picked
	// when the next batch was seen picked.
	Launched, InService, Ready, Picked time.Time
}

// world is the wave's wait as the world delivered it: from the last
// launch (the controller's last termination of the batch before, or the
// surge) to the last Node Ready: the launch delay and the Nodes'
// registration. Its first instances may have launched earlier (a
// termination answered early), which shortens no wait.
func (wv benchWave) world() time.Duration { return wv.Ready.Sub(wv.Launched) }

// waves splits the InService times (by Node name) of the Nodes launched
// after start into the waits before each batch: the Nodes that entered
// service before batch b+1 was picked and after batch b was (or the
// rollout started).
func (bw *benchWatch) waves(start time.Time, inService map[string]time.Time, launch time.Duration) []benchWave {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	var out []benchWave
	prev := start
	for b := int32(1); ; b++ {
		pick, ok := bw.picked[b]
		if !ok {
			return out
		}
		wv := benchWave{Picked: pick}
		for name, at := range inService {
			if !at.After(prev) || !at.Before(pick) {
				continue
			}
			wv.InService = later(wv.InService, at)
			wv.Launched = wv.InService.Add(-launch)
			wv.Ready = later(wv.Ready, bw.ready[name])
		}
		if !wv.InService.IsZero() {
			out = append(out, wv)
		}
		prev = pick
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// timeline describes every batch and every wave relative to start, in
// milliseconds.
func (bw *benchWatch) timeline(start time.Time, waves []benchWave) []string {
	ms := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return fmt.Sprintf("+%.1fs", t.Sub(start).Seconds())
	}
	bw.mu.Lock()
	var batches []int32
	for b := range bw.picked {
		batches = append(batches, b)
	}
	slices.Sort(batches)
	var out []string
	for _, b := range batches {
		out = append(out, fmt.Sprintf("batch %d: picked %s, drained %s, terminating %s, terminated %s", b,
			ms(bw.picked[b]), ms(bw.drained[b]), ms(bw.terminating[b]), ms(bw.terminated[b])))
	}
	bw.mu.Unlock()
	for i, wv := range waves {
		out = append(out, fmt.Sprintf("wave %d: last launched %s, InService %s, last Ready %s (world %.2fs), next batch picked %s (reaction %.2fs)", i,
			ms(wv.Launched), ms(wv.InService), ms(wv.Ready), wv.world().Seconds(), ms(wv.Picked), wv.Picked.Sub(wv.Ready).Seconds()))
	}
	return out
}

// inServiceTimes returns when each Node's instance entered service.
func (w *rolloutWorld) inServiceTimes() map[string]time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]time.Time, len(w.inService))
	for k, v := range w.inService {
		out[k] = v
	}
	return out
}
