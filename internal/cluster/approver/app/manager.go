package app

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/nodeboot/nodeboot/internal/cluster/approver"
	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
	"github.com/nodeboot/nodeboot/internal/cluster/managerkit"
)

// EventSource is the component name on the Events the approver records.
const EventSource = "nodeboot-approver"

// NewManager builds a manager running the approver with opts. Metrics are
// registered with reg; the manager logs through log. cfg's client-side
// limits are set from opts (see clientLimits).
func NewManager(ctx context.Context, cfg *rest.Config, opts Options, log logr.Logger, reg prometheus.Registerer) (manager.Manager, error) {
	scheme, err := NewScheme()
	if err != nil {
		return nil, err
	}
	cfg = clientLimits(cfg, opts.KubeAPIQPS, opts.KubeAPIBurst)
	mgr, err := managerkit.New(cfg, scheme, log, cacheOptions(), opts.Manager)
	if err != nil {
		return nil, err
	}
	metrics, err := approver.NewMetrics(reg)
	if err != nil {
		return nil, err
	}
	inv, err := newInventory(ctx, opts, log, metrics)
	if err != nil {
		return nil, err
	}
	logInventory(log, opts, inv)
	recorder, err := newRecorder(mgr, cfg, opts)
	if err != nil {
		return nil, err
	}
	// The approvals go out apart from the watches (managerkit.WriterClient).
	writer, err := managerkit.WriterClient(mgr, cfg)
	if err != nil {
		return nil, err
	}
	r := newReconciler(writer, opts, inv, recorder, metrics)
	if err := r.SetupWithManager(ctx, mgr, opts.Workers); err != nil {
		return nil, err
	}
	if inv.source != nil {
		inv.source.OnReady(r.InventoryReady)
		if err := mgr.Add(inv.source); err != nil {
			return nil, fmt.Errorf("add the EC2 inventory: %w", err)
		}
	}
	return mgr, nil
}

func newReconciler(c client.Client, opts Options, inv inventorySetup, recorder record.EventRecorder, metrics *approver.Metrics) *approver.Reconciler {
	p := opts.Policy()
	p.Inventory, p.InventoryProblem = inv.mode, inv.problem
	r := &approver.Reconciler{
		Client:   c,
		Recorder: recorder,
		Policy:   p,
		NodeWait: opts.NodeWait,
		Metrics:  metrics,
	}
	if inv.source != nil {
		r.Inventory = inv.source
	}
	return r
}

// clientLimits returns a copy of cfg limited to qps requests a second
// (burst: twice that when 0), or without a client-side limit when qps is
// 0 (client-go takes a negative QPS as none).
func clientLimits(cfg *rest.Config, qps float32, burst int) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	if qps <= 0 {
		cfg.QPS, cfg.Burst = -1, 0
		return cfg
	}
	if burst <= 0 {
		burst = int(2 * qps)
	}
	cfg.QPS, cfg.Burst = qps, max(burst, 1)
	return cfg
}

// newRecorder returns the recorder of the approver's Events: aggregated and
// written through a client of their own, limited to --event-qps, and shut
// down with the manager (approver.NewEventBroadcaster).
func newRecorder(mgr manager.Manager, cfg *rest.Config, opts Options) (record.EventRecorder, error) {
	cs, err := kubernetes.NewForConfigAndClient(clientLimits(cfg, opts.EventQPS, opts.EventBurst), mgr.GetHTTPClient())
	if err != nil {
		return nil, fmt.Errorf("events client: %w", err)
	}
	b := approver.NewEventBroadcaster(cs.CoreV1().Events(""))
	err = mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		<-ctx.Done()
		b.Shutdown()
		return nil
	}))
	if err != nil {
		return nil, fmt.Errorf("add event broadcaster: %w", err)
	}
	return approver.NewEventRecorder(b, mgr.GetScheme(), EventSource), nil
}

// cacheOptions keep the informer caches small: Nodes are cut down to what
// policy.Decide and Events read (name, UID, providerID, addresses), and
// managed fields are dropped everywhere.
func cacheOptions() cache.Options {
	return cache.Options{
		DefaultTransform: cache.TransformStripManagedFields(),
		ByObject: map[client.Object]cache.ByObject{
			&corev1.Node{}: {Transform: trimNode},
			&certificatesv1.CertificateSigningRequest{}: {Transform: cache.TransformStripManagedFields()},
		},
	}
}

// trimNode keeps the fields of a Node the approver reads.
func trimNode(obj any) (any, error) {
	node, ok := obj.(*corev1.Node)
	if !ok {
		return obj, nil
	}
	return &corev1.Node{
		TypeMeta: node.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name:              node.Name,
			UID:               node.UID,
			ResourceVersion:   node.ResourceVersion,
			CreationTimestamp: node.CreationTimestamp,
		},
		Spec:   corev1.NodeSpec{ProviderID: node.Spec.ProviderID},
		Status: corev1.NodeStatus{Addresses: node.Status.Addresses},
	}, nil
}

// logInventory says at startup how SANs are checked, loudly when not
// against EC2.
func logInventory(log logr.Logger, opts Options, inv inventorySetup) {
	switch inv.mode {
	case policy.InventoryEC2:
		log.Info("checking SANs against the EC2 instance behind each Node", "ec2Inventory", opts.EC2Inventory,
			"region", inv.region, "regionFrom", inv.regionSource, "clusterHomeFrom", inv.home, "cacheTTL", opts.EC2InventoryCacheTTL,
			"ec2APIQPS", opts.EC2APIQPS, "ec2APIBurst", opts.EC2APIBurst)
	case policy.InventoryUnavailable:
		log.Info("WARNING: SANs cannot be checked against EC2, so every CSR will be denied (InventoryUnavailable): "+inv.problem,
			"ec2Inventory", opts.EC2Inventory)
	default:
		log.Info("WARNING: --ec2-inventory=off: SANs are checked against the Node's status addresses only, which the node itself may rewrite")
	}
}
