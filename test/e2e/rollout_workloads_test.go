//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

// pauseImage is never pulled: kwok runs the pods.
const workloadImage = "registry.k8s.io/pause:3.10"

func clientcmdRESTConfig(path string) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 100, 200
	return cfg, nil
}

// workload is one thing a group's nodes run, with the replicas that must be
// Running at the end and its budget's minimum (0: no budget).
type workload struct {
	kind         string // Deployment, StatefulSet, DaemonSet
	name         string
	replicas     int32
	minAvailable int32
	// watched budgets are sampled throughout by the PDB watcher; an
	// aggressive budget that force overrides on purpose is not.
	watched     bool
	tolerateAll bool
	emptyDir    bool
}

// podTemplate pins pods to the group's nodes.
func podTemplate(ns, group, app string, w workload) corev1.PodTemplateSpec {
	spec := corev1.PodSpec{
		NodeSelector:                  map[string]string{plan.LabelNodeGroup: group},
		TerminationGracePeriodSeconds: ptr.To[int64](1),
		Containers: []corev1.Container{{
			Name: "app", Image: workloadImage,
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi"),
			}},
		}},
	}
	if w.tolerateAll {
		spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	}
	if w.emptyDir {
		spec.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "scratch", MountPath: "/scratch"}}
	}
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}}, Spec: spec}
}

// deployWorkloads creates a namespace and the workloads, with their
// budgets, on a group's nodes and waits until every replica runs.
func (w *rolloutWorld) deployWorkloads(t *testing.T, ns, group string, ws []workload) {
	t.Helper()
	ctx := t.Context()
	if err := w.client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	for _, wl := range ws {
		sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": wl.name}}
		meta := metav1.ObjectMeta{Namespace: ns, Name: wl.name}
		tmpl := podTemplate(ns, group, wl.name, wl)
		var obj client.Object
		switch wl.kind {
		case "Deployment":
			obj = &appsv1.Deployment{ObjectMeta: meta, Spec: appsv1.DeploymentSpec{Replicas: ptr.To(wl.replicas), Selector: sel, Template: tmpl}}
		case "StatefulSet":
			obj = &appsv1.StatefulSet{ObjectMeta: meta, Spec: appsv1.StatefulSetSpec{Replicas: ptr.To(wl.replicas), Selector: sel, Template: tmpl,
				ServiceName: wl.name, PodManagementPolicy: appsv1.ParallelPodManagement}}
		case "DaemonSet":
			obj = &appsv1.DaemonSet{ObjectMeta: meta, Spec: appsv1.DaemonSetSpec{Selector: sel, Template: tmpl}}
		default:
			t.Fatalf("unknown kind %s", wl.kind)
		}
		if err := w.client.Create(ctx, obj); err != nil {
			t.Fatalf("create %s %s: %v", wl.kind, wl.name, err)
		}
		if wl.minAvailable > 0 {
			pdb := &policyv1.PodDisruptionBudget{ObjectMeta: meta, Spec: policyv1.PodDisruptionBudgetSpec{
				Selector: sel, MinAvailable: ptr.To(intstr.FromInt32(wl.minAvailable)),
			}}
			if err := w.client.Create(ctx, pdb); err != nil {
				t.Fatal(err)
			}
		}
	}
	w.waitWorkloads(t, ns, ws, 3*time.Minute)
}

// waitWorkloads waits until every workload has its replicas Ready (a
// DaemonSet: one per node its selector matches), as their controllers
// report it, and every budget counts them all healthy.
func (w *rolloutWorld) waitWorkloads(t *testing.T, ns string, ws []workload, timeout time.Duration) {
	t.Helper()
	err := waitUntil(t.Context(), "workloads of "+ns+" Running", timeout, 500*time.Millisecond, w.c.procs.procs, func(ctx context.Context) (bool, string, error) {
		var missing []string
		for _, wl := range ws {
			got, want, err := w.readyReplicas(ctx, ns, wl)
			if err != nil {
				return false, err.Error(), nil
			}
			if got != want || want == 0 {
				missing = append(missing, fmt.Sprintf("%s %d/%d", wl.name, got, want))
			}
			if wl.minAvailable > 0 {
				var pdb policyv1.PodDisruptionBudget
				if err := w.client.Get(ctx, client.ObjectKey{Namespace: ns, Name: wl.name}, &pdb); err != nil {
					return false, err.Error(), nil
				}
				if pdb.Status.ObservedGeneration != pdb.Generation || pdb.Status.CurrentHealthy != wl.replicas {
					missing = append(missing, fmt.Sprintf("budget %s healthy %d", wl.name, pdb.Status.CurrentHealthy))
				}
			}
		}
		return len(missing) == 0, strings.Join(missing, ", "), nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// readyReplicas returns a workload's ready and wanted replicas from its
// controller's status (current generation only).
func (w *rolloutWorld) readyReplicas(ctx context.Context, ns string, wl workload) (int32, int32, error) {
	key := client.ObjectKey{Namespace: ns, Name: wl.name}
	switch wl.kind {
	case "Deployment":
		var d appsv1.Deployment
		if err := w.client.Get(ctx, key, &d); err != nil {
			return 0, 0, err
		}
		if d.Status.ObservedGeneration != d.Generation || d.Status.UpdatedReplicas != wl.replicas || d.Status.Replicas != wl.replicas {
			return 0, wl.replicas, nil
		}
		return d.Status.ReadyReplicas, wl.replicas, nil
	case "StatefulSet":
		var s appsv1.StatefulSet
		if err := w.client.Get(ctx, key, &s); err != nil {
			return 0, 0, err
		}
		return s.Status.ReadyReplicas, wl.replicas, nil
	default:
		var ds appsv1.DaemonSet
		if err := w.client.Get(ctx, key, &ds); err != nil {
			return 0, 0, err
		}
		return ds.Status.NumberReady, ds.Status.DesiredNumberScheduled, nil
	}
}

// readyPods counts the pods matching sel that are Running, Ready and not
// terminating: what a PodDisruptionBudget counts as healthy.
func readyPods(pods []corev1.Pod, sel labels.Selector) int {
	n := 0
	for i := range pods {
		p := &pods[i]
		if !sel.Matches(labels.Set(p.Labels)) || p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				n++
			}
		}
	}
	return n
}

// budgetWatcher samples the ready pods of each watched budget throughout a
// rollout and keeps the lowest count it saw.
type budgetWatcher struct {
	mu      sync.Mutex
	lowest  map[string]int
	samples int
	below   []string
	stop    func()
	done    chan struct{}
}

// watchBudgets starts sampling every interval until the returned watcher
// is stopped.
func (w *rolloutWorld) watchBudgets(ctx context.Context, ns string, ws []workload, interval time.Duration) *budgetWatcher {
	ctx, cancel := context.WithCancel(ctx)
	bw := &budgetWatcher{lowest: map[string]int{}, stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(bw.done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			var pods corev1.PodList
			if err := w.client.List(ctx, &pods, client.InNamespace(ns)); err == nil {
				bw.sample(pods.Items, ws)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return bw
}

func (bw *budgetWatcher) sample(pods []corev1.Pod, ws []workload) {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	bw.samples++
	for _, wl := range ws {
		if wl.minAvailable == 0 || !wl.watched {
			continue
		}
		n := readyPods(pods, labels.SelectorFromSet(labels.Set{"app": wl.name}))
		if low, ok := bw.lowest[wl.name]; !ok || n < low {
			bw.lowest[wl.name] = n
		}
		if n < int(wl.minAvailable) {
			bw.below = append(bw.below, fmt.Sprintf("%s %s: %d ready < minAvailable %d", time.Now().Format("15:04:05.000"), wl.name, n, wl.minAvailable))
		}
	}
}

// finish stops sampling and reports the lowest counts.
func (bw *budgetWatcher) finish() (samples int, lowest map[string]int, below []string) {
	bw.stop()
	<-bw.done
	bw.mu.Lock()
	defer bw.mu.Unlock()
	return bw.samples, bw.lowest, bw.below
}
