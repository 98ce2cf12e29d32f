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
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
)

// fakeInventory answers every lookup with answer and records the keys.
type fakeInventory struct {
	answer policy.InventoryAnswer
	keys   []policy.InstanceKey
}

func (f *fakeInventory) Lookup(_ context.Context, key policy.InstanceKey) policy.InventoryAnswer {
	f.keys = append(f.keys, key)
	return f.answer
}

func TestReconcileAsksTheInventory(t *testing.T) {
	csr := newCSR(t, validFixture())
	h := newHarness(t, csr, ec2Node(testProviderID))
	inv := &fakeInventory{answer: byID(testInstance())}
	h.rec.Policy.Inventory, h.rec.Inventory = policy.InventoryEC2, inv

	h.reconcile(t, csr.Name)

	if want := []policy.InstanceKey{{ID: testInstanceID}}; !slices.Equal(inv.keys, want) {
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
		modify    func(*fixture)
		noNode    bool
	}{
		{name: "check off", inventory: policy.InventoryOff},
		{name: "no EC2 access", inventory: policy.InventoryUnavailable},
		{name: "node missing", inventory: policy.InventoryEC2, noNode: true},
		{name: "requester not a node", inventory: policy.InventoryEC2, modify: func(f *fixture) { f.username = "alice" }},
		{name: "other signer", inventory: policy.InventoryEC2, modify: func(f *fixture) { f.signer = "example.com/x" }},
		{name: "CSR denied for its usages", inventory: policy.InventoryEC2, modify: func(f *fixture) { f.usages = append(f.usages, "client auth") }},
		{name: "CSR denied by the CIDR policy", inventory: policy.InventoryEC2, modify: func(f *fixture) {
			f.request.IPAddresses = []net.IP{net.ParseIP("203.0.113.7")}
		}},
		{name: "CSR already approved", inventory: policy.InventoryEC2, modify: func(f *fixture) {
			f.status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: "True"}}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := validFixture()
			if tc.modify != nil {
				tc.modify(&f)
			}
			csr := newCSR(t, f)
			h := newHarness(t, csr)
			if !tc.noNode {
				h = newHarness(t, csr, ec2Node(testProviderID))
			}
			inv := &fakeInventory{answer: byID(testInstance())}
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
	csr := newCSR(t, validFixture())
	h := newHarness(t, csr, ec2Node(testProviderID))
	inv := &fakeInventory{answer: policy.InventoryAnswer{Key: policy.InstanceKey{ID: testInstanceID}, Err: errors.New("ec2 DescribeInstances: gave up after 3 attempts: 503"), Transient: true}}
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

	h.clock.SetTime(testCreated.Add(5 * time.Minute))
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
	csr := newCSR(t, validFixture())
	h := newHarness(t, csr, ec2Node(testProviderID))
	h.rec.Policy.Inventory = policy.InventoryEC2
	h.rec.Inventory = &fakeInventory{answer: policy.InventoryAnswer{Key: policy.InstanceKey{ID: testInstanceID}, Err: errors.New("UnauthorizedOperation")}}

	if res := h.reconcile(t, csr.Name); res != (reconcile.Result{}) {
		t.Fatalf("Reconcile() = %+v, want no requeue", res)
	}
	got := h.conditions(t, csr.Name)
	if len(got) != 1 || got[0].Type != certificatesv1.CertificateDenied || got[0].Reason != policy.ReasonInventoryLookupFailed {
		t.Fatalf("conditions = %+v, want one Denied/%s", got, policy.ReasonInventoryLookupFailed)
	}
}
