package approver

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"slices"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/nodeboot/nodeboot/internal/aws/ec2/ec2instance"
	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy/policytest"
)

// fakeInventory answers every lookup with answer, or with none while
// pending, and records the keys.
type fakeInventory struct {
	answer  policy.InventoryAnswer
	pending bool
	keys    []policy.InstanceKey
	// prefetched are the keys asked ahead (approver.Prefetcher).
	prefetched []policy.InstanceKey
}

func (f *fakeInventory) Prefetch(key policy.InstanceKey) bool {
	f.prefetched = append(f.prefetched, key)
	return !f.pending
}

func (f *fakeInventory) Lookup(_ context.Context, key policy.InstanceKey) (policy.InventoryAnswer, bool) {
	f.keys = append(f.keys, key)
	if f.pending {
		return policy.InventoryAnswer{}, false
	}
	return f.answer, true
}

// foundByID is the inventory's answer for the Node's instance, looked up by
// instance ID.
func foundByID() policy.InventoryAnswer {
	return policy.InventoryAnswer{
		Key: policy.InstanceKey{ID: policytest.InstanceID}, Instances: []ec2instance.Instance{policytest.Instance()},
		Home: policy.ClusterHome{VPCID: policytest.VPC, AccountID: policytest.Account},
	}
}

// TestReconcileWaitsForTheInventoryWithoutBlocking checks the path of a
// CSR whose instance EC2 has not been asked about yet: the reconcile
// returns at once without a decision or a requeue, and InventoryReady
// brings the CSR back, which is then decided on the answer.
func TestReconcileWaitsForTheInventoryWithoutBlocking(t *testing.T) {
	csr := policytest.NewCSR(t, policytest.ValidFixture())
	h := newHarness(t, csr, policytest.EC2Node(policytest.ProviderID))
	inv := &fakeInventory{answer: foundByID(), pending: true}
	h.rec.Policy.Inventory, h.rec.Inventory = policy.InventoryEC2, inv
	h.rec.wake = make(chan event.GenericEvent, 1)

	if res := h.reconcile(t, csr.Name); res != (reconcile.Result{}) {
		t.Fatalf("Reconcile() while the answer is pending = %+v, want no requeue", res)
	}
	if got := h.conditions(t, csr.Name); len(got) != 0 {
		t.Fatalf("conditions while the answer is pending = %+v, want none", got)
	}
	h.rec.InventoryReady(policy.InstanceKey{ID: "i-0fffffffffffffff0"}) // another node's answer
	if len(h.rec.wake) != 0 {
		t.Fatalf("another key's answer woke %d CSRs", len(h.rec.wake))
	}
	h.rec.InventoryReady(policy.InstanceKey{ID: policytest.InstanceID})
	select {
	case ev := <-h.rec.wake:
		if ev.Object.GetName() != csr.Name {
			t.Fatalf("woke %q, want %q", ev.Object.GetName(), csr.Name)
		}
	default:
		t.Fatal("InventoryReady woke no CSR")
	}
	h.rec.InventoryReady(policy.InstanceKey{ID: policytest.InstanceID})
	if len(h.rec.wake) != 0 {
		t.Fatal("a second answer woke the CSR again")
	}
	inv.pending = false
	h.reconcile(t, csr.Name)
	if got := h.conditions(t, csr.Name); len(got) != 1 || got[0].Type != certificatesv1.CertificateApproved {
		t.Fatalf("conditions after the answer = %+v, want one Approved", got)
	}
}

func TestReconcileAsksTheInventory(t *testing.T) {
	csr := policytest.NewCSR(t, policytest.ValidFixture())
	h := newHarness(t, csr, policytest.EC2Node(policytest.ProviderID))
	inv := &fakeInventory{answer: foundByID()}
	h.rec.Policy.Inventory, h.rec.Inventory = policy.InventoryEC2, inv

	h.reconcile(t, csr.Name)

	if want := []policy.InstanceKey{{ID: policytest.InstanceID}}; !slices.Equal(inv.keys, want) {
		t.Fatalf("lookups = %+v, want %+v", inv.keys, want)
	}
	got := h.conditions(t, csr.Name)
	if len(got) != 1 || got[0].Type != certificatesv1.CertificateApproved {
		t.Fatalf("conditions = %+v, want one Approved", got)
	}
}

func TestReconcileSkipsTheInventoryWhenItCannotMatter(t *testing.T) {
	tests := []struct {
		name      string
		inventory policy.InventoryMode
		modify    func(*policytest.Fixture)
		noNode    bool
	}{
		{name: "check off", inventory: policy.InventoryOff},
		{name: "no EC2 access", inventory: policy.InventoryUnavailable},
		{name: "node missing", inventory: policy.InventoryEC2, noNode: true},
		{name: "requester not a node", inventory: policy.InventoryEC2, modify: func(f *policytest.Fixture) { f.Username = "alice" }},
		{name: "other signer", inventory: policy.InventoryEC2, modify: func(f *policytest.Fixture) { f.Signer = "example.com/x" }},
		{name: "CSR denied for its usages", inventory: policy.InventoryEC2, modify: func(f *policytest.Fixture) { f.Usages = append(f.Usages, "client auth") }},
		{name: "CSR denied by the CIDR policy", inventory: policy.InventoryEC2, modify: func(f *policytest.Fixture) {
			f.Request.IPAddresses = []net.IP{net.ParseIP("203.0.113.7")}
		}},
		{name: "CSR already approved", inventory: policy.InventoryEC2, modify: func(f *policytest.Fixture) {
			f.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: "True"}}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := policytest.ValidFixture()
			if tc.modify != nil {
				tc.modify(&f)
			}
			csr := policytest.NewCSR(t, f)
			h := newHarness(t, csr)
			if !tc.noNode {
				h = newHarness(t, csr, policytest.EC2Node(policytest.ProviderID))
			}
			inv := &fakeInventory{answer: foundByID()}
			h.rec.Policy.Inventory, h.rec.Inventory = tc.inventory, inv
			h.rec.Policy.AllowedCIDRs = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
			h.reconcile(t, csr.Name)
			if len(inv.keys) != 0 {
				t.Fatalf("lookups = %+v, want none", inv.keys)
			}
		})
	}
}

func TestReconcileWaitsForTheInventoryThenDenies(t *testing.T) {
	csr := policytest.NewCSR(t, policytest.ValidFixture())
	h := newHarness(t, csr, policytest.EC2Node(policytest.ProviderID))
	inv := &fakeInventory{answer: policy.InventoryAnswer{Key: policy.InstanceKey{ID: policytest.InstanceID}, Err: errors.New("ec2 DescribeInstances: gave up after 3 attempts: 503"), Transient: true}}
	h.rec.Policy.Inventory, h.rec.Inventory = policy.InventoryEC2, inv

	// 1.5 s old: retry after about its age, write nothing.
	if res := h.reconcile(t, csr.Name); res.RequeueAfter != 1500*time.Millisecond {
		t.Fatalf("RequeueAfter = %v, want 1.5s", res.RequeueAfter)
	}
	if got := h.conditions(t, csr.Name); len(got) != 0 {
		t.Fatalf("conditions while waiting = %+v, want none", got)
	}
	if got := h.counter(t, MetricInventoryWaits, map[string]string{}); got != 1 {
		t.Fatalf("%s = %v, want 1", MetricInventoryWaits, got)
	}
	if got := h.counter(t, MetricNodeWaits, map[string]string{}); got != 0 {
		t.Fatalf("%s = %v, want 0", MetricNodeWaits, got)
	}

	h.clock.SetTime(policytest.Created().Add(5 * time.Minute))
	if res := h.reconcile(t, csr.Name); res != (reconcile.Result{}) {
		t.Fatalf("Reconcile() after the wait = %+v, want no requeue", res)
	}
	got := h.conditions(t, csr.Name)
	wantMsg := `EC2 inventory lookup of instance i-0123456789abcdef0 for node "ip-10-0-0-1.ec2.internal" failed: ec2 DescribeInstances: gave up after 3 attempts: 503 after waiting 5m0s`
	if len(got) != 1 || got[0].Type != certificatesv1.CertificateDenied || got[0].Reason != policy.ReasonInventoryUnreachable || got[0].Message != wantMsg {
		t.Fatalf("conditions = %+v, want one Denied/%s %q", got, policy.ReasonInventoryUnreachable, wantMsg)
	}
	if len(inv.keys) != 2 {
		t.Fatalf("lookups = %d, want one per reconcile (2)", len(inv.keys))
	}
}

func TestReconcileDeniesAPermanentLookupFailureAtOnce(t *testing.T) {
	csr := policytest.NewCSR(t, policytest.ValidFixture())
	h := newHarness(t, csr, policytest.EC2Node(policytest.ProviderID))
	h.rec.Policy.Inventory = policy.InventoryEC2
	h.rec.Inventory = &fakeInventory{answer: policy.InventoryAnswer{Key: policy.InstanceKey{ID: policytest.InstanceID}, Err: errors.New("UnauthorizedOperation")}}

	if res := h.reconcile(t, csr.Name); res != (reconcile.Result{}) {
		t.Fatalf("Reconcile() = %+v, want no requeue", res)
	}
	got := h.conditions(t, csr.Name)
	if len(got) != 1 || got[0].Type != certificatesv1.CertificateDenied || got[0].Reason != policy.ReasonInventoryLookupFailed {
		t.Fatalf("conditions = %+v, want one Denied/%s", got, policy.ReasonInventoryLookupFailed)
	}
}

// TestEventsPrefetchTheInventory: the CSR's event asks the inventory ahead
// about its Node's instance; the CSR is queued at once when the answer is
// at hand, else parked until InventoryReady queues it. A CSR denied for
// itself costs no lookup ahead and is queued at once.
func TestEventsPrefetchTheInventory(t *testing.T) {
	key := policy.InstanceKey{ID: policytest.InstanceID}
	for _, tc := range []struct {
		name          string
		modify        func(*policytest.Fixture)
		pending       bool
		wantPrefetch  []policy.InstanceKey
		wantQueuedNow bool
	}{
		{name: "answer not at hand: parked", pending: true, wantPrefetch: []policy.InstanceKey{key}},
		{name: "answer at hand: queued", wantPrefetch: []policy.InstanceKey{key}, wantQueuedNow: true},
		{name: "denied for its usages: queued", pending: true, wantQueuedNow: true,
			modify: func(f *policytest.Fixture) { f.Usages = append(f.Usages, "client auth") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := policytest.ValidFixture()
			if tc.modify != nil {
				tc.modify(&f)
			}
			csr := policytest.NewCSR(t, f)
			h := newHarness(t, csr, policytest.EC2Node(policytest.ProviderID))
			inv := &fakeInventory{answer: foundByID(), pending: tc.pending}
			h.rec.Policy.Inventory, h.rec.Inventory = policy.InventoryEC2, inv
			h.rec.wake, h.rec.stopped = make(chan event.GenericEvent, 1), t.Context().Done()
			q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
			defer q.ShutDown()
			h.rec.prefetchingEnqueue().Create(t.Context(), event.CreateEvent{Object: csr}, q)
			if !slices.Equal(inv.prefetched, tc.wantPrefetch) || len(inv.keys) != 0 {
				t.Fatalf("prefetched %+v and looked up %+v, want %+v and no lookup", inv.prefetched, inv.keys, tc.wantPrefetch)
			}
			if queued := q.Len() == 1; queued != tc.wantQueuedNow {
				t.Fatalf("queued at once: %v, want %v", queued, tc.wantQueuedNow)
			}
			h.clock.Step(300 * time.Millisecond)
			h.rec.InventoryReady(key)
			woken := len(h.rec.wake) == 1
			wantParked := uint64(0)
			if woken {
				wantParked = 1
			}
			if n, sum := h.histogram(t, MetricInventoryParked); n != wantParked || (woken && sum != 0.3) {
				t.Fatalf("waited-time samples %d (sum %gs), want %d (of 0.3s)", n, sum, wantParked)
			}
			if parked := !tc.wantQueuedNow; woken != parked {
				t.Fatalf("woken by InventoryReady: %v, want %v", woken, parked)
			}
			if woken {
				if ev := <-h.rec.wake; ev.Object.GetName() != csr.Name {
					t.Fatalf("woke %q, want %q", ev.Object.GetName(), csr.Name)
				}
			}
		})
	}
}

// TestNodeRegistrationPrefetchesTheInventory: a newly registered Node's
// event asks the inventory ahead about its instance, so that its kubelet's
// serving CSR, which follows within about a second, finds the answer at
// hand; a Node registered long ago (an approver starting in a large
// cluster lists them all), a policy that checks no instance, and an
// inventory that cannot be asked ahead cost nothing.
func TestNodeRegistrationPrefetchesTheInventory(t *testing.T) {
	byID := policy.InstanceKey{ID: policytest.InstanceID}
	byName := policy.InstanceKey{PrivateDNSName: policytest.Node}
	for _, tc := range []struct {
		name         string
		age          time.Duration
		providerID   string
		mode         policy.InventoryMode
		wantPrefetch []policy.InstanceKey
	}{
		{name: "registered a second ago, by providerID", age: time.Second, providerID: policytest.ProviderID, mode: policy.InventoryEC2, wantPrefetch: []policy.InstanceKey{byID}},
		{name: "registered a second ago, by private DNS name", age: time.Second, mode: policy.InventoryEC2, wantPrefetch: []policy.InstanceKey{byName}},
		{name: "registered at the horizon", age: registrationPrefetchHorizon, providerID: policytest.ProviderID, mode: policy.InventoryEC2, wantPrefetch: []policy.InstanceKey{byID}},
		{name: "registered before the horizon", age: registrationPrefetchHorizon + time.Second, providerID: policytest.ProviderID, mode: policy.InventoryEC2},
		{name: "inventory off", age: time.Second, providerID: policytest.ProviderID, mode: policy.InventoryOff},
		{name: "inventory unavailable", age: time.Second, providerID: policytest.ProviderID, mode: policy.InventoryUnavailable},
		{name: "providerID of another cloud", age: time.Second, providerID: "gce://project/zone/name", mode: policy.InventoryEC2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			node := policytest.EC2Node(tc.providerID)
			node.CreationTimestamp = metav1.NewTime(h.clock.Now().Add(-tc.age))
			inv := &fakeInventory{pending: true}
			h.rec.Policy.Inventory, h.rec.Inventory = tc.mode, inv
			if reqs := h.rec.prefetchingPendingCSRsForNode(t.Context(), node); len(reqs) != 0 {
				t.Fatalf("queued %v, want no CSR (none exists)", reqs)
			}
			if !slices.Equal(inv.prefetched, tc.wantPrefetch) || len(inv.keys) != 0 {
				t.Fatalf("prefetched %+v and looked up %+v, want %+v and no lookup", inv.prefetched, inv.keys, tc.wantPrefetch)
			}
		})
	}
}
