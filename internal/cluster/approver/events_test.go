package approver

import (
	"fmt"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy/policytest"
)

// hangGuard bounds waits that only catch a hang.
const hangGuard = time.Minute

func eventScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, certificatesv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	return scheme
}

// TestEventsNeverDelayADecision decides a burst of CSRs while the API
// server never answers an Event write: every decision is written anyway.
func TestEventsNeverDelayADecision(t *testing.T) {
	const csrs = 1500 // more than client-go's queue of 1,000 Events
	cs := fake.NewClientset()
	unblock := make(chan struct{})
	t.Cleanup(func() { close(unblock) })
	cs.PrependReactor("*", "events", func(clienttesting.Action) (bool, runtime.Object, error) {
		<-unblock
		return true, nil, fmt.Errorf("never answered")
	})
	b := NewEventBroadcaster(cs.CoreV1().Events(""))
	t.Cleanup(b.Shutdown)

	objs := []client.Object{policytest.NewNode(policytest.Node)}
	for i := range csrs {
		f := policytest.ValidFixture()
		f.Name = fmt.Sprintf("csr-%04d", i)
		objs = append(objs, policytest.NewCSR(t, f))
	}
	h := newHarness(t, objs...)
	h.rec.Recorder = NewEventRecorder(b, eventScheme(t), "nodeboot-approver")

	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range csrs {
			h.reconcile(t, fmt.Sprintf("csr-%04d", i))
		}
	}()
	select {
	case <-done:
	case <-time.After(hangGuard):
		t.Fatal("decisions hang while Events cannot be written")
	}
	for _, name := range []string{"csr-0000", fmt.Sprintf("csr-%04d", csrs-1)} {
		if got := h.conditions(t, name); len(got) != 1 || got[0].Type != certificatesv1.CertificateApproved {
			t.Fatalf("%s conditions = %+v, want one Approved", name, got)
		}
	}
}

// TestEventsOfABurstAreCombined records one AutoApproved Event for each
// of many CSRs: after the first few, they count up one combined Event.
func TestEventsOfABurstAreCombined(t *testing.T) {
	const csrs = 60
	cs := fake.NewClientset()
	b := NewEventBroadcaster(cs.CoreV1().Events(""))
	t.Cleanup(b.Shutdown)
	rec := NewEventRecorder(b, eventScheme(t), "nodeboot-approver")
	for i := range csrs {
		csr := &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("csr-%02d", i), UID: "uid"}}
		rec.Event(csr, corev1.EventTypeNormal, policy.ReasonApproved, fmt.Sprintf("approved %d", i))
	}
	var events []corev1.Event
	deadline := time.Now().Add(hangGuard)
	for count := int32(0); count < csrs; {
		if time.Now().After(deadline) {
			t.Fatalf("Events counted %d of %d: %+v", count, csrs, events)
		}
		time.Sleep(10 * time.Millisecond)
		list, err := cs.CoreV1().Events("").List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		events, count = list.Items, 0
		for _, e := range events {
			count += e.Count
		}
	}
	if len(events) > aggregateAfter {
		t.Fatalf("%d Event objects for %d decisions, want at most %d", len(events), csrs, aggregateAfter)
	}
	combined := 0
	for _, e := range events {
		if e.Count > 1 {
			combined++
			if want := "(combined from similar events on several CertificateSigningRequests) AutoApproved"; e.Message[:len(want)] != want {
				t.Errorf("combined Event message %q", e.Message)
			}
		}
	}
	if combined != 1 {
		t.Errorf("%d combined Events, want 1: %+v", combined, events)
	}
}
