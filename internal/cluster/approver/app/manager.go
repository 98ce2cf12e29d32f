package app

import (
	"context"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
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
// registered with reg; the manager logs through log.
func NewManager(ctx context.Context, cfg *rest.Config, opts Options, log logr.Logger, reg prometheus.Registerer) (manager.Manager, error) {
	scheme, err := NewScheme()
	if err != nil {
		return nil, err
	}
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
	p := opts.Policy()
	p.Inventory = inv.mode
	r := &approver.Reconciler{
		Client:    mgr.GetClient(),
		Recorder:  mgr.GetEventRecorderFor(EventSource),
		Policy:    p,
		Inventory: inv.inventory,
		NodeWait:  opts.NodeWait,
		Metrics:   metrics,
	}
	if err := r.SetupWithManager(ctx, mgr); err != nil {
		return nil, err
	}
	return mgr, nil
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
			"region", inv.region, "regionFrom", inv.regionSource, "cacheTTL", opts.EC2InventoryCacheTTL)
	case policy.InventoryUnavailable:
		log.Info("WARNING: no AWS region found, so SANs cannot be checked against EC2: CSRs of Nodes whose providerID is aws:// "+
			"will be denied (InventoryUnavailable); set --aws-region or AWS_REGION, or --ec2-inventory=off", "ec2Inventory", opts.EC2Inventory)
	default:
		log.Info("WARNING: --ec2-inventory=off: SANs are checked against the Node's status addresses only, which the node itself may rewrite")
	}
}
