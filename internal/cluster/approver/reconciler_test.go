package approver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy/policytest"
)

// recordedEvent is one Event as the reconciler recorded it.
type recordedEvent struct {
	Object, Type, Reason, Message string
}

// eventLog is a record.EventRecorder that keeps the events and the objects
// they are about.
type eventLog struct{ events []recordedEvent }

func (l *eventLog) Event(obj runtime.Object, eventType, reason, message string) {
	name := "?"
	if m, err := meta.Accessor(obj); err == nil {
		name = m.GetName()
	}
	l.events = append(l.events, recordedEvent{
		Object: fmt.Sprintf("%T/%s", obj, name), Type: eventType, Reason: reason, Message: message,
	})
}

func (l *eventLog) Eventf(obj runtime.Object, eventType, reason, format string, args ...any) {
	l.Event(obj, eventType, reason, fmt.Sprintf(format, args...))
}

func (l *eventLog) AnnotatedEventf(obj runtime.Object, _ map[string]string, eventType, reason, format string, args ...any) {
	l.Eventf(obj, eventType, reason, format, args...)
}

type harness struct {
	client   client.Client
	rec      *Reconciler
	events   *eventLog
	clock    *clocktesting.FakeClock
	registry *prometheus.Registry
}

func newHarness(t *testing.T, objs ...client.Object) *harness {
	t.Helper()
	return newHarnessWith(t, interceptor.Funcs{}, objs...)
}

// newHarnessWith builds a harness whose fake client calls funcs first.
func newHarnessWith(t *testing.T, funcs interceptor.Funcs, objs ...client.Object) *harness {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, certificatesv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	c := fake.NewClientBuilder().
		WithScheme(scheme).
		WithObjects(objs...).
		WithStatusSubresource(&certificatesv1.CertificateSigningRequest{}).
		WithIndex(&certificatesv1.CertificateSigningRequest{}, RequesterNodeIndex, IndexRequesterNode).
		WithInterceptorFuncs(funcs).
		Build()
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{client: c, events: &eventLog{}, clock: clocktesting.NewFakeClock(policytest.Created().Add(1500 * time.Millisecond)), registry: reg}
	h.rec = &Reconciler{Client: c, Recorder: h.events, NodeWait: 5 * time.Minute, Clock: h.clock, Metrics: m}
	return h
}

func (h *harness) reconcile(t *testing.T, name string) reconcile.Result {
	t.Helper()
	res, err := h.rec.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Name: name}})
	if err != nil {
		t.Fatalf("Reconcile(%s): %v", name, err)
	}
	return res
}

func (h *harness) conditions(t *testing.T, name string) []certificatesv1.CertificateSigningRequestCondition {
	t.Helper()
	var csr certificatesv1.CertificateSigningRequest
	if err := h.client.Get(context.Background(), types.NamespacedName{Name: name}, &csr); err != nil {
		t.Fatalf("get CSR %s: %v", name, err)
	}
	for i := range csr.Status.Conditions {
		csr.Status.Conditions[i].LastUpdateTime = metav1.Time{}
		csr.Status.Conditions[i].LastTransitionTime = metav1.Time{}
	}
	return csr.Status.Conditions
}

func (h *harness) counter(t *testing.T, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := h.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, fam := range families {
		if fam.GetName() != name {
			continue
		}
		for _, m := range fam.GetMetric() {
			if labelsEqual(m, labels) {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// histogram returns the sample count and sum of the unlabelled histogram
// name.
func (h *harness) histogram(t *testing.T, name string) (uint64, float64) {
	t.Helper()
	families, err := h.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, fam := range families {
		if fam.GetName() == name && len(fam.GetMetric()) == 1 {
			hist := fam.GetMetric()[0].GetHistogram()
			return hist.GetSampleCount(), hist.GetSampleSum()
		}
	}
	return 0, 0
}

func labelsEqual(m *dto.Metric, want map[string]string) bool {
	if len(m.GetLabel()) != len(want) {
		return false
	}
	for _, l := range m.GetLabel() {
		if want[l.GetName()] != l.GetValue() {
			return false
		}
	}
	return true
}

func TestReconcileApprovesServingCSR(t *testing.T) {
	csr := policytest.NewCSR(t, policytest.ValidFixture())
	h := newHarness(t, csr, policytest.NewNode(policytest.Node))

	if res := h.reconcile(t, csr.Name); res != (reconcile.Result{}) {
		t.Fatalf("Reconcile() = %+v, want no requeue", res)
	}

	wantMsg := `kubelet serving certificate for node "ip-10-0-0-1.ec2.internal": SANs [DNS:ip-10-0-0-1.ec2.internal, IP:10.0.0.1] match the node's addresses`
	wantConds := []certificatesv1.CertificateSigningRequestCondition{{
		Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: policy.ReasonApproved, Message: wantMsg,
	}}
	if got := h.conditions(t, csr.Name); !slices.Equal(got, wantConds) {
		t.Fatalf("conditions = %+v, want %+v", got, wantConds)
	}
	// An approval is recorded on the CSR only; denials also on the Node.
	wantEvents := []recordedEvent{
		{Object: "*v1.CertificateSigningRequest/" + policytest.CSRName, Type: corev1.EventTypeNormal, Reason: policy.ReasonApproved, Message: wantMsg},
	}
	if !slices.Equal(h.events.events, wantEvents) {
		t.Fatalf("events = %+v, want %+v", h.events.events, wantEvents)
	}
	if got := h.counter(t, MetricDecisions, map[string]string{"decision": "approved", "reason": policy.ReasonApproved}); got != 1 {
		t.Fatalf("%s{approved,AutoApproved} = %v, want 1", MetricDecisions, got)
	}

	// A second pass sees the Approved condition and writes nothing more.
	h.reconcile(t, csr.Name)
	if got := len(h.conditions(t, csr.Name)); got != 1 {
		t.Fatalf("after second reconcile: %d conditions, want 1", got)
	}
	if got := len(h.events.events); got != 1 {
		t.Fatalf("after second reconcile: %d events, want 1", got)
	}
}

func TestReconcileDeniesForeignIP(t *testing.T) {
	f := policytest.ValidFixture()
	f.Request.IPAddresses = []net.IP{net.ParseIP("10.0.0.1"), net.ParseIP("10.96.0.1")}
	csr := policytest.NewCSR(t, f)
	h := newHarness(t, csr, policytest.NewNode(policytest.Node))

	h.reconcile(t, csr.Name)

	wantMsg := `IP SAN 10.96.0.1 is not an address of node "ip-10-0-0-1.ec2.internal" (node IP addresses [10.0.0.1 fd00:ec2::1 54.1.2.3])`
	wantConds := []certificatesv1.CertificateSigningRequestCondition{{
		Type: certificatesv1.CertificateDenied, Status: corev1.ConditionTrue, Reason: policy.ReasonIPAddressNotNodeAddress, Message: wantMsg,
	}}
	if got := h.conditions(t, csr.Name); !slices.Equal(got, wantConds) {
		t.Fatalf("conditions = %+v, want %+v", got, wantConds)
	}
	wantEvents := []recordedEvent{
		{Object: "*v1.CertificateSigningRequest/" + policytest.CSRName, Type: corev1.EventTypeWarning, Reason: policy.ReasonIPAddressNotNodeAddress, Message: wantMsg},
		{Object: "*v1.Node/" + policytest.Node, Type: corev1.EventTypeWarning, Reason: policy.ReasonIPAddressNotNodeAddress, Message: "CSR " + policytest.CSRName + ": " + wantMsg},
	}
	if !slices.Equal(h.events.events, wantEvents) {
		t.Fatalf("events = %+v, want %+v", h.events.events, wantEvents)
	}
	if got := h.counter(t, MetricDecisions, map[string]string{"decision": "denied", "reason": policy.ReasonIPAddressNotNodeAddress}); got != 1 {
		t.Fatalf("denied counter = %v, want 1", got)
	}
}

func TestReconcileWaitsForNodeThenDenies(t *testing.T) {
	csr := policytest.NewCSR(t, policytest.ValidFixture())
	h := newHarness(t, csr)

	// 1.5 s old: retry after about its age.
	if res := h.reconcile(t, csr.Name); res.RequeueAfter != 1500*time.Millisecond {
		t.Fatalf("RequeueAfter = %v, want 1.5s", res.RequeueAfter)
	}
	// 4 min 50 s old: the backoff is capped by the 10 s left.
	h.clock.SetTime(policytest.Created().Add(4*time.Minute + 50*time.Second))
	if res := h.reconcile(t, csr.Name); res.RequeueAfter != 10*time.Second {
		t.Fatalf("RequeueAfter = %v, want 10s", res.RequeueAfter)
	}
	if got := h.conditions(t, csr.Name); len(got) != 0 {
		t.Fatalf("conditions while waiting = %+v, want none", got)
	}
	if got := h.counter(t, MetricNodeWaits, map[string]string{}); got != 2 {
		t.Fatalf("%s = %v, want 2", MetricNodeWaits, got)
	}

	h.clock.SetTime(policytest.Created().Add(5 * time.Minute))
	if res := h.reconcile(t, csr.Name); res != (reconcile.Result{}) {
		t.Fatalf("Reconcile() after the wait = %+v, want no requeue", res)
	}
	wantMsg := `node "ip-10-0-0-1.ec2.internal" not found after waiting 5m0s`
	wantConds := []certificatesv1.CertificateSigningRequestCondition{{
		Type: certificatesv1.CertificateDenied, Status: corev1.ConditionTrue, Reason: policy.ReasonNodeNotFound, Message: wantMsg,
	}}
	if got := h.conditions(t, csr.Name); !slices.Equal(got, wantConds) {
		t.Fatalf("conditions = %+v, want %+v", got, wantConds)
	}
	wantEvents := []recordedEvent{
		{Object: "*v1.CertificateSigningRequest/" + policytest.CSRName, Type: corev1.EventTypeWarning, Reason: policy.ReasonNodeNotFound, Message: wantMsg},
	}
	if !slices.Equal(h.events.events, wantEvents) {
		t.Fatalf("events = %+v, want %+v", h.events.events, wantEvents)
	}
}

func TestReconcileApprovesOnceNodeRegisters(t *testing.T) {
	csr := policytest.NewCSR(t, policytest.ValidFixture())
	h := newHarness(t, csr)
	if res := h.reconcile(t, csr.Name); res.RequeueAfter == 0 {
		t.Fatal("Reconcile() without Node did not requeue")
	}
	if err := h.client.Create(context.Background(), policytest.NewNode(policytest.Node)); err != nil {
		t.Fatal(err)
	}
	h.reconcile(t, csr.Name)
	got := h.conditions(t, csr.Name)
	if len(got) != 1 || got[0].Type != certificatesv1.CertificateApproved {
		t.Fatalf("conditions = %+v, want one Approved", got)
	}
}

func TestReconcileWaitsForYoungNodeAddresses(t *testing.T) {
	csr := policytest.NewCSR(t, policytest.ValidFixture())
	node := policytest.NewNode(policytest.Node)
	// Registered 0.5 s before the clock, addresses not reported yet.
	node.CreationTimestamp = metav1.NewTime(policytest.Created().Add(time.Second))
	addresses := node.Status.Addresses
	node.Status.Addresses = nil
	h := newHarness(t, csr, node)

	if res := h.reconcile(t, csr.Name); res.RequeueAfter != time.Second {
		t.Fatalf("RequeueAfter = %v, want 1s", res.RequeueAfter)
	}
	if got := h.conditions(t, csr.Name); len(got) != 0 {
		t.Fatalf("conditions while waiting = %+v, want none", got)
	}

	node.Status.Addresses = addresses
	if err := h.client.Status().Update(context.Background(), node); err != nil {
		t.Fatal(err)
	}
	h.reconcile(t, csr.Name)
	got := h.conditions(t, csr.Name)
	if len(got) != 1 || got[0].Type != certificatesv1.CertificateApproved {
		t.Fatalf("conditions = %+v, want one Approved", got)
	}
}

func TestReconcileDeniesForeignIPOnceYoungNodeIsOldEnough(t *testing.T) {
	f := policytest.ValidFixture()
	f.Request.IPAddresses = []net.IP{net.ParseIP("10.96.0.1")}
	csr := policytest.NewCSR(t, f)
	node := policytest.NewNode(policytest.Node)
	nodeCreated := policytest.Created().Add(-10 * time.Second)
	node.CreationTimestamp = metav1.NewTime(nodeCreated)
	h := newHarness(t, csr, node)

	// The Node is 11.5 s old: wait about that long.
	if res := h.reconcile(t, csr.Name); res.RequeueAfter != 11500*time.Millisecond {
		t.Fatalf("RequeueAfter = %v, want 11.5s", res.RequeueAfter)
	}
	h.clock.SetTime(nodeCreated.Add(5 * time.Minute))
	if res := h.reconcile(t, csr.Name); res != (reconcile.Result{}) {
		t.Fatalf("Reconcile() = %+v, want no requeue", res)
	}
	got := h.conditions(t, csr.Name)
	if len(got) != 1 || got[0].Type != certificatesv1.CertificateDenied || got[0].Reason != policy.ReasonIPAddressNotNodeAddress {
		t.Fatalf("conditions = %+v, want one Denied/IPAddressNotNodeAddress", got)
	}
}

func TestNodeIdentityChanged(t *testing.T) {
	node := policytest.NewNode(policytest.Node)
	readdressed := policytest.NewNode(policytest.Node)
	readdressed.Status.Addresses = readdressed.Status.Addresses[:1]
	relabelled := policytest.NewNode(policytest.Node)
	relabelled.Labels = map[string]string{"a": "b"}
	provided := policytest.NewNode(policytest.Node)
	provided.Spec.ProviderID = "aws:///us-east-1a/i-0123456789abcdef0"
	tests := []struct {
		name     string
		old, new client.Object
		want     bool
	}{
		{name: "addresses changed", old: node, new: readdressed, want: true},
		{name: "providerID set", old: node, new: provided, want: true},
		{name: "only labels changed", old: node, new: relabelled, want: false},
		{name: "not nodes", old: &corev1.Pod{}, new: &corev1.Pod{}, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := nodeIdentityChanged(tc.old, tc.new); got != tc.want {
				t.Fatalf("nodeIdentityChanged() = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestReconcileDeniesBadCSRWithoutWaitingForNode(t *testing.T) {
	f := policytest.ValidFixture()
	f.Usages = []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth}
	csr := policytest.NewCSR(t, f)
	h := newHarness(t, csr)

	if res := h.reconcile(t, csr.Name); res != (reconcile.Result{}) {
		t.Fatalf("Reconcile() = %+v, want no requeue", res)
	}
	got := h.conditions(t, csr.Name)
	if len(got) != 1 || got[0].Type != certificatesv1.CertificateDenied || got[0].Reason != policy.ReasonUsageNotAllowed {
		t.Fatalf("conditions = %+v, want one Denied/UsageNotAllowed", got)
	}
}

func TestReconcileDeniesNonNodeRequesterWithEventOnCSROnly(t *testing.T) {
	f := policytest.ValidFixture()
	f.Username = "system:bootstrap:abcdef"
	f.Groups = []string{"system:bootstrappers"}
	csr := policytest.NewCSR(t, f)
	h := newHarness(t, csr, policytest.NewNode(policytest.Node))

	h.reconcile(t, csr.Name)

	got := h.conditions(t, csr.Name)
	if len(got) != 1 || got[0].Type != certificatesv1.CertificateDenied || got[0].Reason != policy.ReasonRequesterNotNode {
		t.Fatalf("conditions = %+v, want one Denied/RequesterNotNode", got)
	}
	if len(h.events.events) != 1 || h.events.events[0].Object != "*v1.CertificateSigningRequest/"+policytest.CSRName {
		t.Fatalf("events = %+v, want one on the CSR", h.events.events)
	}
}

func TestReconcileLeavesOthersAlone(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*policytest.Fixture)
	}{
		{name: "client certificate signer", modify: func(f *policytest.Fixture) { f.Signer = certificatesv1.KubeAPIServerClientKubeletSignerName }},
		{name: "already denied by someone else", modify: func(f *policytest.Fixture) {
			f.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{
				Type: certificatesv1.CertificateDenied, Status: corev1.ConditionTrue, Reason: "ByAdmin",
			}}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := policytest.ValidFixture()
			tc.modify(&f)
			csr := policytest.NewCSR(t, f)
			h := newHarness(t, csr, policytest.NewNode(policytest.Node))
			before := h.conditions(t, csr.Name)

			if res := h.reconcile(t, csr.Name); res != (reconcile.Result{}) {
				t.Fatalf("Reconcile() = %+v, want no requeue", res)
			}
			if got := h.conditions(t, csr.Name); !slices.Equal(got, before) {
				t.Fatalf("conditions = %+v, want unchanged %+v", got, before)
			}
			if len(h.events.events) != 0 {
				t.Fatalf("events = %+v, want none", h.events.events)
			}
		})
	}
}

func TestReconcileWriteErrors(t *testing.T) {
	csrResource := schema.GroupResource{Group: certificatesv1.GroupName, Resource: "certificatesigningrequests"}
	tests := []struct {
		name        string
		err         error
		wantResult  reconcile.Result
		wantErrText string
	}{
		{name: "conflict retries soon", err: apierrors.NewConflict(csrResource, policytest.CSRName, errors.New("stale")), wantResult: reconcile.Result{RequeueAfter: time.Second}},
		{name: "CSR deleted meanwhile", err: apierrors.NewNotFound(csrResource, policytest.CSRName)},
		{name: "other errors are returned", err: errors.New("boom"), wantErrText: "write Approved condition on CSR csr-abcde: boom"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var gotSubresource string
			funcs := interceptor.Funcs{
				SubResourceUpdate: func(_ context.Context, _ client.Client, sub string, _ client.Object, _ ...client.SubResourceUpdateOption) error {
					gotSubresource = sub
					return tc.err
				},
			}
			h := newHarnessWith(t, funcs, policytest.NewCSR(t, policytest.ValidFixture()), policytest.NewNode(policytest.Node))

			res, err := h.rec.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Name: policytest.CSRName}})

			if gotSubresource != "approval" {
				t.Fatalf("updated subresource %q, want approval", gotSubresource)
			}
			if res != tc.wantResult {
				t.Fatalf("Reconcile() = %+v, want %+v", res, tc.wantResult)
			}
			switch {
			case tc.wantErrText == "" && err != nil:
				t.Fatalf("Reconcile() error = %v, want none", err)
			case tc.wantErrText != "" && (err == nil || err.Error() != tc.wantErrText):
				t.Fatalf("Reconcile() error = %v, want %q", err, tc.wantErrText)
			case tc.wantErrText != "" && !errors.Is(err, tc.err):
				t.Fatalf("Reconcile() error %v does not wrap %v", err, tc.err)
			}
			if len(h.events.events) != 0 {
				t.Fatalf("events = %+v, want none after a failed write", h.events.events)
			}
		})
	}
}

func TestReconcileMissingCSR(t *testing.T) {
	h := newHarness(t)
	if res := h.reconcile(t, "gone"); res != (reconcile.Result{}) {
		t.Fatalf("Reconcile() = %+v, want no requeue", res)
	}
}

func TestPendingCSRsForNode(t *testing.T) {
	mk := func(name string, modify func(*policytest.Fixture)) client.Object {
		f := policytest.ValidFixture()
		f.Name = name
		if modify != nil {
			modify(&f)
		}
		return policytest.NewCSR(t, f)
	}
	h := newHarness(t,
		mk("pending-1", nil),
		mk("pending-2", nil),
		mk("approved", func(f *policytest.Fixture) {
			f.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue}}
		}),
		mk("client-cert", func(f *policytest.Fixture) { f.Signer = certificatesv1.KubeAPIServerClientKubeletSignerName }),
		mk("other-node", func(f *policytest.Fixture) { f.Username = policy.NodeUserPrefix + policytest.OtherNode }),
	)

	got := h.rec.PendingCSRsForNode(context.Background(), policytest.NewNode(policytest.Node))

	want := []reconcile.Request{
		{NamespacedName: types.NamespacedName{Name: "pending-1"}},
		{NamespacedName: types.NamespacedName{Name: "pending-2"}},
	}
	slices.SortFunc(got, func(a, b reconcile.Request) int { return strings.Compare(a.Name, b.Name) })
	if !slices.Equal(got, want) {
		t.Fatalf("PendingCSRsForNode() = %v, want %v", got, want)
	}
}

func TestIndexRequesterNode(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*policytest.Fixture)
		want   []string
	}{
		{name: "kubelet serving CSR of a node", want: []string{policytest.Node}},
		{name: "other signer", modify: func(f *policytest.Fixture) { f.Signer = "example.com/x" }},
		{name: "requester not a node", modify: func(f *policytest.Fixture) { f.Username = "alice" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := policytest.ValidFixture()
			if tc.modify != nil {
				tc.modify(&f)
			}
			if got := IndexRequesterNode(policytest.NewCSR(t, f)); !slices.Equal(got, tc.want) {
				t.Fatalf("IndexRequesterNode() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNodeRetryDelay(t *testing.T) {
	tests := []struct {
		name           string
		age, remaining time.Duration
		want           time.Duration
	}{
		{name: "new CSR waits the minimum", age: 100 * time.Millisecond, remaining: time.Minute, want: time.Second},
		{name: "delay follows age", age: 8 * time.Second, remaining: time.Minute, want: 8 * time.Second},
		{name: "delay capped", age: 3 * time.Minute, remaining: time.Hour, want: 30 * time.Second},
		{name: "never past the deadline", age: 20 * time.Second, remaining: 3 * time.Second, want: 3 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := nodeRetryDelay(tc.age, tc.remaining); got != tc.want {
				t.Fatalf("nodeRetryDelay(%v, %v) = %v, want %v", tc.age, tc.remaining, got, tc.want)
			}
		})
	}
}
