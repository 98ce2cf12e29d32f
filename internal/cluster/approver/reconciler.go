package approver

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
)

// Backoff bounds while waiting for a missing Node. The delay grows with the
// CSR's age, so retries come at roughly doubling intervals.
const (
	minNodeRetry = time.Second
	maxNodeRetry = 30 * time.Second
)

// conflictRetry is the delay before deciding again after a write conflict.
const conflictRetry = time.Second

// approvalSubresource is the CSR subresource that holds the Approved and
// Denied conditions.
const approvalSubresource = "approval"

// Inventory answers what EC2 knows about the instance behind a Node. It
// never blocks and never fails: a failed lookup is an answer with Err set,
// and a lookup that needs an EC2 call returns false, after which the
// inventory calls Reconciler.InventoryReady with the key once the answer is
// at hand.
type Inventory interface {
	Lookup(ctx context.Context, key policy.InstanceKey) (policy.InventoryAnswer, bool)
}

// Reconciler approves or denies kubelet serving CSRs with policy.Decide.
type Reconciler struct {
	// Client reads CSRs and Nodes and updates the approval subresource.
	Client client.Client
	// Recorder records an Event on the CSR and, when it exists, the Node.
	Recorder record.EventRecorder
	// Policy is passed to policy.Decide.
	Policy policy.Policy
	// Inventory is asked about the Node's instance when Policy.Inventory
	// is policy.InventoryEC2; nil then denies every CSR (no answer).
	Inventory Inventory
	// NodeWait is how long after its creation a CSR stays pending while
	// its Node does not exist or the EC2 inventory cannot be reached, and
	// how long after the Node's creation a CSR whose SANs are not (yet)
	// among the Node's addresses stays pending; after that it is denied.
	// 0 denies at once.
	NodeWait time.Duration
	// Clock tells the time; nil means the real clock.
	Clock clock.PassiveClock
	// Metrics records decisions; nil records nothing.
	Metrics *Metrics

	// waiting holds the CSRs waiting for an inventory answer, by key;
	// wake carries them back to the controller (SetupWithManager).
	waiting waiters
	wake    chan event.GenericEvent
	stopped <-chan struct{}
}

// Reconcile decides one CSR and writes the decision. The logger comes from
// ctx, where controller-runtime puts the manager's logger.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	log := logf.FromContext(ctx)
	csr := &certificatesv1.CertificateSigningRequest{}
	if err := r.Client.Get(ctx, req.NamespacedName, csr); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	node, err := r.requesterNode(ctx, csr)
	if err != nil {
		return reconcile.Result{}, err
	}
	answer, ready := r.lookupInventory(ctx, csr, node)
	if !ready {
		log.V(2).Info("waiting for the EC2 inventory's answer", "node", node.Name)
		return reconcile.Result{}, nil // InventoryReady brings the CSR back
	}
	d := policy.Decide(csr, node, answer, r.Policy)
	if d.Skipped() {
		log.V(2).Info("skipping CSR", "reason", d.Reason, "message", d.Message)
		return reconcile.Result{}, nil
	}
	if left, elapsed := r.nodeWaitLeft(csr, node, d); left > 0 {
		delay := nodeRetryDelay(elapsed, left)
		log.V(1).Info("waiting for the node to register or report its addresses, or for EC2 to answer",
			"reason", d.Reason, "message", d.Message, "retryAfter", delay, "giveUpIn", left)
		r.Metrics.observeWait(d)
		return reconcile.Result{RequeueAfter: delay}, nil
	}
	if d.NodeMissing() || d.InventoryTransient() {
		d.Message = fmt.Sprintf("%s after waiting %s", d.Message, r.NodeWait)
	}
	return r.apply(ctx, csr, node, d)
}

// apply writes the decision through the approval subresource, then records
// Events, metrics and a log line with the decision latency.
func (r *Reconciler) apply(ctx context.Context, csr *certificatesv1.CertificateSigningRequest, node *corev1.Node, d policy.Decision) (reconcile.Result, error) {
	log := logf.FromContext(ctx)
	if err := r.writeDecision(ctx, csr, d); err != nil {
		switch {
		case apierrors.IsNotFound(err):
			return reconcile.Result{}, nil
		case apierrors.IsConflict(err):
			// The cached CSR is stale; decide again on fresh data.
			log.V(1).Info("CSR changed while deciding; retrying", "error", err.Error())
			return reconcile.Result{RequeueAfter: conflictRetry}, nil
		}
		return reconcile.Result{}, fmt.Errorf("write %s condition on CSR %s: %w", conditionType(d), csr.Name, err)
	}
	r.recordEvents(csr, node, d)
	// creationTimestamp has one-second resolution, so is the latency.
	latency := r.now().Sub(csr.CreationTimestamp.Time)
	r.Metrics.observeDecision(d, latency)
	log.Info("decided kubelet serving CSR", "approved", d.Approve, "reason", d.Reason,
		"message", d.Message, "requester", csr.Spec.Username, "latency", latency)
	return reconcile.Result{}, nil
}

// nodeWaitLeft returns how much longer a decision that may still change
// with the Node's state or EC2's availability is held back, and how long
// the wait has lasted: a missing Node and an unreachable inventory are
// waited for up to NodeWait after the CSR's creation, and the addresses of
// a Node up to NodeWait after the Node's creation. Other decisions are
// final at once.
func (r *Reconciler) nodeWaitLeft(csr *certificatesv1.CertificateSigningRequest, node *corev1.Node, d policy.Decision) (left, elapsed time.Duration) {
	var since time.Time
	switch {
	case d.NodeMissing(), d.InventoryTransient():
		since = csr.CreationTimestamp.Time
	case d.NodeAddressMismatch() && node != nil:
		since = node.CreationTimestamp.Time
	default:
		return 0, 0
	}
	elapsed = r.now().Sub(since)
	return r.NodeWait - elapsed, elapsed
}

// lookupInventory asks the inventory about node's instance when
// policy.Decide will read the answer (policy.NeedsInventory) and the Node
// says how to find its instance. A CSR denied for itself costs no EC2 call
// (its signature aside: see policy.NeedsInventory). It returns false when
// the answer is not at hand yet; the CSR is then registered to be woken by
// InventoryReady.
func (r *Reconciler) lookupInventory(ctx context.Context, csr *certificatesv1.CertificateSigningRequest, node *corev1.Node) (policy.InventoryAnswer, bool) {
	if r.Inventory == nil || !policy.NeedsInventory(csr, node, r.Policy) {
		return policy.InventoryAnswer{}, true
	}
	key, err := policy.InstanceKeyFor(node)
	if err != nil {
		return policy.InventoryAnswer{}, true // policy.Decide denies: not an EC2 instance
	}
	// Registered before asking, so that an answer arriving in between
	// still wakes the CSR; a wake-up for a CSR decided meanwhile is skipped.
	r.waiting.add(key, csr.Name, r.now())
	ans, ready := r.Inventory.Lookup(ctx, key)
	if ready {
		r.waiting.remove(key, csr.Name)
	}
	return ans, ready
}

// Prefetcher is an Inventory that can be asked ahead of a decision: it
// starts finding key's answer (when not at hand) without counting a lookup,
// and reports whether the answer is at hand; if not, it calls the
// InventoryReady it was given once the answer is.
type Prefetcher interface {
	Prefetch(key policy.InstanceKey) bool
}

// prefetch asks the inventory ahead about the instance of csr's Node when
// the decision will need it (the same test as lookupInventory's). It
// reports whether csr was parked: registered to be queued by
// InventoryReady once the answer is at hand, rather than now, when a
// worker would only find the answer missing and leave it waiting.
func (r *Reconciler) prefetch(ctx context.Context, csr *certificatesv1.CertificateSigningRequest) (parked bool) {
	p, ok := r.Inventory.(Prefetcher)
	if !ok || r.wake == nil {
		return false
	}
	node, err := r.requesterNode(ctx, csr)
	if err != nil || node == nil || !policy.NeedsInventory(csr, node, r.Policy) {
		return false
	}
	key, err := policy.InstanceKeyFor(node)
	if err != nil {
		return false
	}
	// Registered before asking, as in lookupInventory.
	r.waiting.add(key, csr.Name, r.now())
	if p.Prefetch(key) {
		r.waiting.remove(key, csr.Name)
		return false
	}
	return true
}

// InventoryReady requeues the CSRs waiting for the inventory's answer about
// key. The inventory calls it once the answer is at hand.
func (r *Reconciler) InventoryReady(key policy.InstanceKey) {
	if r.wake == nil {
		return // not set up with a manager
	}
	waiting := r.waiting.take(key)
	for _, name := range slices.Sorted(maps.Keys(waiting)) {
		r.Metrics.observeParked(r.now().Sub(waiting[name]))
		ev := event.GenericEvent{Object: &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: name}}}
		select {
		case r.wake <- ev:
		case <-r.stopped:
			return
		}
	}
}

// waiters are the CSRs waiting for an inventory answer, by key, with when
// each began to wait.
type waiters struct {
	mu    sync.Mutex
	byKey map[policy.InstanceKey]map[string]time.Time
}

// add registers csr as waiting for key's answer since now (a CSR already
// waiting keeps its first time).
func (w *waiters) add(key policy.InstanceKey, csr string, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.byKey == nil {
		w.byKey = map[policy.InstanceKey]map[string]time.Time{}
	}
	if w.byKey[key] == nil {
		w.byKey[key] = map[string]time.Time{}
	}
	if _, waiting := w.byKey[key][csr]; !waiting {
		w.byKey[key][csr] = now
	}
}

func (w *waiters) remove(key policy.InstanceKey, csr string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.byKey[key], csr)
	if len(w.byKey[key]) == 0 {
		delete(w.byKey, key)
	}
}

// take removes and returns the CSRs waiting for key's answer, with when
// each began to wait.
func (w *waiters) take(key policy.InstanceKey) map[string]time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	waiting := w.byKey[key]
	delete(w.byKey, key)
	return waiting
}

// requesterNode returns the Node named by the CSR's requester, or nil when
// the requester is not a node or the Node does not exist.
func (r *Reconciler) requesterNode(ctx context.Context, csr *certificatesv1.CertificateSigningRequest) (*corev1.Node, error) {
	name, ok := policy.RequesterNodeName(csr.Spec.Username)
	if !ok || csr.Spec.SignerName != certificatesv1.KubeletServingSignerName {
		return nil, nil
	}
	node := &corev1.Node{}
	err := r.Client.Get(ctx, types.NamespacedName{Name: name}, node)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("get node %s: %w", name, err)
	}
	return node, nil
}

func (r *Reconciler) writeDecision(ctx context.Context, csr *certificatesv1.CertificateSigningRequest, d policy.Decision) error {
	updated := csr.DeepCopy()
	updated.Status.Conditions = append(updated.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
		Type:           conditionType(d),
		Status:         corev1.ConditionTrue,
		Reason:         d.Reason,
		Message:        d.Message,
		LastUpdateTime: metav1.NewTime(r.now()),
	})
	return r.Client.SubResource(approvalSubresource).Update(ctx, updated)
}

// recordEvents records the decision on the CSR and, for a denial, on the
// Node too (where `kubectl describe node` shows why its serving certificate
// is missing). The Recorder queues them and never blocks (see
// NewEventRecorder); the decision is already written.
func (r *Reconciler) recordEvents(csr *certificatesv1.CertificateSigningRequest, node *corev1.Node, d policy.Decision) {
	if r.Recorder == nil {
		return
	}
	if d.Approve {
		r.Recorder.Event(csr, corev1.EventTypeNormal, d.Reason, d.Message)
		return
	}
	r.Recorder.Event(csr, corev1.EventTypeWarning, d.Reason, d.Message)
	if node != nil {
		r.Recorder.Eventf(node, corev1.EventTypeWarning, d.Reason, "CSR %s: %s", csr.Name, d.Message)
	}
}

func (r *Reconciler) now() time.Time {
	if r.Clock == nil {
		return time.Now()
	}
	return r.Clock.Now()
}

func conditionType(d policy.Decision) certificatesv1.RequestConditionType {
	if d.Approve {
		return certificatesv1.CertificateApproved
	}
	return certificatesv1.CertificateDenied
}

// nodeRetryDelay waits about as long as the CSR is old, within
// [minNodeRetry, maxNodeRetry], and never past the end of the wait.
func nodeRetryDelay(age, remaining time.Duration) time.Duration {
	return min(max(age, minNodeRetry), maxNodeRetry, remaining)
}
