package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/managerkit"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/controller"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup/asg"
)

// Defaults of the controller's flags (those of the manager's flags are
// managerkit's).
const (
	// DefaultLeaderElectionID is the name of the controller's leader
	// election Lease.
	DefaultLeaderElectionID = "nodeboot-rollout"
	DefaultConcurrency      = 4
	// DefaultKubeAPIQPS and DefaultKubeAPIBurst bound the controller's
	// requests to the API server (client-go's own default, 5/s, would
	// make a 50-node batch wait on the client for a minute).
	DefaultKubeAPIQPS   = 50
	DefaultKubeAPIBurst = 100
)

// EventSource is the component name on the Events the controller records.
const EventSource = "nodeboot-rollout"

// ControllerOptions is the controller's command line.
type ControllerOptions struct {
	Kubeconfig string
	// Manager holds leader election and the metrics, health probe and
	// pprof servers.
	Manager managerkit.Options
	// Concurrency is how many rollouts are planned at the same time.
	Concurrency int
	// GroupRefresh and Poll are controller.Reconciler's.
	GroupRefresh, Poll time.Duration
	// KubeAPIQPS and KubeAPIBurst limit the requests to the API server.
	KubeAPIQPS   float32
	KubeAPIBurst int
	// Workers is controller.Reconciler.Workers.
	Workers   int
	LogLevel  slog.Level
	LogFormat string
}

// ParseControllerFlags parses the controller's arguments.
func ParseControllerFlags(args []string, env Env) (ControllerOptions, error) {
	var o ControllerOptions
	var level string
	fs := newFlagSet("controller", env.Stdout)
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "kubeconfig file; empty: $KUBECONFIG, ~/.kube/config, then the in-cluster service account")
	managerkit.AddFlags(fs, &o.Manager, managerkit.FlagDefaults{
		LeaderElectionID: DefaultLeaderElectionID,
		LeaderElectUsage: "elect a leader through a Lease so that only one replica acts",
	})
	managerkit.AddPprofFlag(fs, &o.Manager)
	fs.IntVar(&o.Concurrency, "concurrency", DefaultConcurrency, "rollouts planned at the same time")
	fs.DurationVar(&o.GroupRefresh, "group-refresh", controller.DefaultGroupRefresh, "how long a description of an Auto Scaling group is reused while nothing changed it")
	fs.DurationVar(&o.Poll, "poll", controller.DefaultPoll, "longest pause between two planning steps of an active rollout")
	fs.Float32Var(&o.KubeAPIQPS, "kube-api-qps", DefaultKubeAPIQPS, "requests per second to the API server")
	fs.IntVar(&o.KubeAPIBurst, "kube-api-burst", DefaultKubeAPIBurst, "burst of requests to the API server")
	fs.IntVar(&o.Workers, "workers", controller.DefaultWorkers, "requests (evictions, node patches, terminations) one planning step makes at the same time")
	fs.StringVar(&level, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&o.LogFormat, "log-format", "json", "json or text")
	if err := parse(fs, args, 0); err != nil {
		return o, err
	}
	if err := o.LogLevel.UnmarshalText([]byte(level)); err != nil {
		return o, fmt.Errorf("%w: --log-level: %w", ErrUsage, err)
	}
	if o.LogFormat != "json" && o.LogFormat != "text" {
		return o, fmt.Errorf("%w: --log-format %q is neither json nor text", ErrUsage, o.LogFormat)
	}
	if o.Concurrency < 1 || o.GroupRefresh <= 0 || o.Poll <= 0 || o.KubeAPIQPS <= 0 || o.KubeAPIBurst < 1 || o.Workers < 1 {
		return o, fmt.Errorf("%w: --concurrency, --group-refresh, --poll, --kube-api-qps, --kube-api-burst and --workers must be positive", ErrUsage)
	}
	return o, nil
}

func runController(ctx context.Context, args []string, env Env) error {
	opts, err := ParseControllerFlags(args, env)
	if err != nil {
		return err
	}
	log := newLogger(env.Stderr, opts.LogLevel, opts.LogFormat)
	ctrllog.SetLogger(log)
	klog.SetLogger(log)
	cfg, err := restConfig(opts.Kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = opts.KubeAPIQPS, opts.KubeAPIBurst
	opener := &asg.Opener{Load: awsLoader(slog.New(logr.ToSlogHandler(log)))}
	mgr, err := NewManager(ctx, cfg, opts, opener, log, ctrlmetrics.Registry)
	if err != nil {
		return err
	}
	log.Info("starting nodeboot-rollout controller", "leaderElect", opts.Manager.LeaderElect,
		"leaderElectionNamespace", opts.Manager.LeaderElectionNamespace, "concurrency", opts.Concurrency,
		"groupRefresh", opts.GroupRefresh, "poll", opts.Poll)
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("run manager: %w", err)
	}
	return nil
}

// NewScheme registers the API groups the controller and CLI touch.
func NewScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, policyv1.AddToScheme, coordinationv1.AddToScheme, eventsv1.AddToScheme, rolloutv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			return nil, fmt.Errorf("build scheme: %w", err)
		}
	}
	return scheme, nil
}

// NewManager builds a manager running the rollout controller; the manager
// logs through log.
func NewManager(ctx context.Context, cfg *rest.Config, opts ControllerOptions, groups controller.GroupOpener, log logr.Logger, reg prometheus.Registerer) (manager.Manager, error) {
	scheme, err := NewScheme()
	if err != nil {
		return nil, err
	}
	mgr, err := managerkit.New(cfg, scheme, log, cacheOptions(), opts.Manager)
	if err != nil {
		return nil, err
	}
	metrics, err := controller.NewMetrics(reg)
	if err != nil {
		return nil, err
	}
	recorder, err := newRecorder(mgr, cfg)
	if err != nil {
		return nil, err
	}
	// The patches, evictions and status writes go out apart from the
	// watches whose events the controller reacts to (managerkit.WriterClient).
	writer, err := managerkit.WriterClient(mgr, cfg)
	if err != nil {
		return nil, err
	}
	r := &controller.Reconciler{
		Client:       writer,
		Recorder:     recorder,
		Groups:       groups,
		Metrics:      metrics,
		GroupRefresh: opts.GroupRefresh,
		Poll:         opts.Poll,
		Workers:      opts.Workers,
		// Half the client's burst: a step's patches go out without waiting
		// on the client, and leave room for its evictions and status.
		NodePatches: max(opts.KubeAPIBurst/2, 1),
	}
	if err := r.SetupWithManager(ctx, mgr, opts.Concurrency); err != nil {
		return nil, err
	}
	return mgr, nil
}

// newRecorder returns the recorder of the rollout's Events, shut down when
// the manager stops. Unlike the manager's own recorder it keeps every
// Event of a rollout: client-go's defaults drop an object's Events beyond
// 25 (then one per 5 minutes) and fold more than 10 with the same reason
// into one, which would hide the pods and budgets blocking a drain in a
// large rollout.
func newRecorder(mgr manager.Manager, cfg *rest.Config) (record.EventRecorder, error) {
	cs, err := kubernetes.NewForConfigAndClient(cfg, mgr.GetHTTPClient())
	if err != nil {
		return nil, fmt.Errorf("events client: %w", err)
	}
	b := record.NewBroadcasterWithCorrelatorOptions(record.CorrelatorOptions{BurstSize: 1000, QPS: 10, MaxEvents: 1000})
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: cs.CoreV1().Events("")})
	err = mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		<-ctx.Done()
		b.Shutdown()
		return nil
	}))
	if err != nil {
		return nil, fmt.Errorf("add event broadcaster: %w", err)
	}
	return b.NewRecorder(mgr.GetScheme(), corev1.EventSource{Component: EventSource}), nil
}

// cacheOptions keep the informer caches small: Nodes and Pods are cut
// down to what the planner reads, managed fields are dropped everywhere.
func cacheOptions() cache.Options {
	return cache.Options{
		DefaultTransform: cache.TransformStripManagedFields(),
		ByObject: map[client.Object]cache.ByObject{
			&corev1.Node{}: {Transform: trimNode},
			// Only pods bound to a node matter to a drain.
			&corev1.Pod{}: {Transform: trimPod, Field: fields.OneTermNotEqualSelector("spec.nodeName", "")},
		},
	}
}

// trimNode keeps the fields of a Node the planner and the patches read.
func trimNode(obj any) (any, error) {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return obj, nil
	}
	out := &corev1.Node{
		TypeMeta:   n.TypeMeta,
		ObjectMeta: trimMeta(n.ObjectMeta),
		Spec:       corev1.NodeSpec{ProviderID: n.Spec.ProviderID, Unschedulable: n.Spec.Unschedulable, Taints: n.Spec.Taints},
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			out.Status.Conditions = []corev1.NodeCondition{{Type: c.Type, Status: c.Status}}
		}
	}
	return out, nil
}

// trimPod keeps the fields of a Pod the planner reads.
func trimPod(obj any) (any, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	out := &corev1.Pod{
		TypeMeta:   p.TypeMeta,
		ObjectMeta: trimMeta(p.ObjectMeta),
		Spec: corev1.PodSpec{
			NodeName: p.Spec.NodeName, Tolerations: p.Spec.Tolerations,
			TerminationGracePeriodSeconds: p.Spec.TerminationGracePeriodSeconds,
		},
		Status: corev1.PodStatus{Phase: p.Status.Phase},
	}
	for _, v := range p.Spec.Volumes {
		if v.EmptyDir != nil {
			out.Spec.Volumes = append(out.Spec.Volumes, corev1.Volume{Name: v.Name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
		}
	}
	return out, nil
}

func trimMeta(m metav1.ObjectMeta) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion,
		CreationTimestamp: m.CreationTimestamp, DeletionTimestamp: m.DeletionTimestamp,
		Labels: m.Labels, Annotations: m.Annotations, OwnerReferences: m.OwnerReferences,
	}
}
