package approver

import (
	"context"
	"fmt"
	"slices"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
)

// ControllerName names the controller in logs and metrics.
const ControllerName = "kubelet-serving-csr-approver"

// RequesterNodeIndex is the CSR field index holding the node name of a
// kubelet serving CSR's requester.
const RequesterNodeIndex = "nodeboot.requesterNode"

// wakeBuffer is the number of inventory wake-ups queued for the
// controller; one batch answers at most a few hundred CSRs.
const wakeBuffer = 4096

// SetupWithManager registers the reconciler with mgr, deciding up to
// workers CSRs at a time: it watches kubelet serving CSRs and, so that CSRs
// waiting for their Node are decided as soon as it registers or reports its
// addresses, Node creations and changes of addresses or providerID (which
// also ask the EC2 inventory ahead about a newly registered Node's
// instance); CSRs waiting for the EC2 inventory come back through
// InventoryReady.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr manager.Manager, workers int) error {
	err := mgr.GetFieldIndexer().IndexField(ctx, &certificatesv1.CertificateSigningRequest{}, RequesterNodeIndex, IndexRequesterNode)
	if err != nil {
		return fmt.Errorf("index CSRs by requester node: %w", err)
	}
	r.wake, r.stopped = make(chan event.GenericEvent, wakeBuffer), ctx.Done()
	err = builder.ControllerManagedBy(mgr).
		Named(ControllerName).
		WithOptions(controller.Options{MaxConcurrentReconciles: max(workers, 1)}).
		Watches(&certificatesv1.CertificateSigningRequest{}, r.prefetchingEnqueue(), builder.WithPredicates(undecidedServing())).
		Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(r.prefetchingPendingCSRsForNode), builder.WithPredicates(nodeCreatedOrReaddressed())).
		WatchesRawSource(source.Channel(r.wake, &handler.EnqueueRequestForObject{})).
		Complete(r)
	if err != nil {
		return fmt.Errorf("build controller %s: %w", ControllerName, err)
	}
	return nil
}

// IndexRequesterNode is the index function of RequesterNodeIndex.
func IndexRequesterNode(obj client.Object) []string {
	csr, ok := obj.(*certificatesv1.CertificateSigningRequest)
	if !ok || csr.Spec.SignerName != certificatesv1.KubeletServingSignerName {
		return nil
	}
	if name, ok := policy.RequesterNodeName(csr.Spec.Username); ok {
		return []string{name}
	}
	return nil
}

// PendingCSRsForNode maps a Node to the undecided kubelet serving CSRs its
// kubelet requested.
func (r *Reconciler) PendingCSRsForNode(ctx context.Context, obj client.Object) []reconcile.Request {
	var list certificatesv1.CertificateSigningRequestList
	if err := r.Client.List(ctx, &list, client.MatchingFields{RequesterNodeIndex: obj.GetName()}); err != nil {
		logf.FromContext(ctx).Error(err, "list CSRs of new node", "node", obj.GetName())
		return nil
	}
	var reqs []reconcile.Request
	for i := range list.Items {
		if policy.Pending(&list.Items[i]) {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Name: list.Items[i].Name}})
		}
	}
	return reqs
}

// registrationPrefetchHorizon is how recently a Node must have been created
// for its event to ask the EC2 inventory about its instance ahead of its
// kubelet's serving CSR. A kubelet asks for its serving certificate within
// about a second of registering: client-go's certificate manager tries
// every second and has a template once the kubelet's Node informer shows
// its own Node with an address. The lookup then runs while the kubelet
// gets there, and the CSR finds its answer at hand. Older Nodes, which an
// approver starting in a large cluster lists, cost no call.
const registrationPrefetchHorizon = time.Minute

// prefetchingPendingCSRsForNode is PendingCSRsForNode that first asks the
// inventory ahead about the instance of a Node registered within
// registrationPrefetchHorizon.
func (r *Reconciler) prefetchingPendingCSRsForNode(ctx context.Context, obj client.Object) []reconcile.Request {
	if node, ok := obj.(*corev1.Node); ok {
		r.prefetchForNode(node)
	}
	return r.PendingCSRsForNode(ctx, obj)
}

// prefetchForNode asks the inventory ahead about node's instance when the
// policy checks instances and node is newly registered. No CSR waits on
// it: a CSR that comes before the answer is parked by its own event.
func (r *Reconciler) prefetchForNode(node *corev1.Node) {
	p, ok := r.Inventory.(Prefetcher)
	if !ok || r.Policy.Inventory != policy.InventoryEC2 || r.now().Sub(node.CreationTimestamp.Time) > registrationPrefetchHorizon {
		return
	}
	if key, err := policy.InstanceKeyFor(node); err == nil {
		p.Prefetch(key)
	}
}

// prefetchingEnqueue enqueues a CSR, as For's handler would, but first asks
// the inventory about its Node's instance when the decision will need it:
// a CSR whose answer is not at hand is queued by InventoryReady once it is
// (prefetch), so a worker takes it once, when it can decide it, and the
// EC2 call runs while the CSRs before it are decided.
func (r *Reconciler) prefetchingEnqueue() handler.Funcs {
	enqueue := func(ctx context.Context, obj client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		if csr, ok := obj.(*certificatesv1.CertificateSigningRequest); ok && r.prefetch(ctx, csr) {
			return
		}
		q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Name: obj.GetName()}})
	}
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, e.Object, q)
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, e.ObjectNew, q)
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Name: e.Object.GetName()}})
		},
		GenericFunc: func(ctx context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, e.Object, q)
		},
	}
}

// undecidedServing passes kubelet serving CSRs that are not decided yet:
// the approval and the signer's certificate each change a CSR once more,
// and a join burst would otherwise decide every CSR three times (twice to
// find it decided).
func undecidedServing() predicate.Funcs {
	return predicate.NewPredicateFuncs(func(obj client.Object) bool {
		csr, ok := obj.(*certificatesv1.CertificateSigningRequest)
		return ok && policy.Pending(csr)
	})
}

func nodeCreatedOrReaddressed() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return true },
		UpdateFunc:  func(e event.UpdateEvent) bool { return nodeIdentityChanged(e.ObjectOld, e.ObjectNew) },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// nodeIdentityChanged reports whether what policy.Decide reads of a Node
// changed: its addresses or its providerID (set once, by the kubelet or a
// cloud controller manager).
func nodeIdentityChanged(oldObj, newObj client.Object) bool {
	oldNode, okOld := oldObj.(*corev1.Node)
	newNode, okNew := newObj.(*corev1.Node)
	return okOld && okNew && (!slices.Equal(oldNode.Status.Addresses, newNode.Status.Addresses) ||
		oldNode.Spec.ProviderID != newNode.Spec.ProviderID)
}
