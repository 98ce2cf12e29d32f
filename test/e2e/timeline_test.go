//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"sync"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Milestones of one join, recorded when the watch event arrives.
const (
	msNodeRegistered    = "node registered"
	msNodeReady         = "node ready"
	msServingCreated    = "serving CSR created"
	msServingApproved   = "serving CSR approved"
	msServingIssued     = "serving CSR issued"
	msClientCSRCreated  = "client CSR created"
	msClientCSRApproved = "client CSR approved"
	msClientCSRIssued   = "client CSR issued"
)

// timeline records when each milestone of a node's join was first seen,
// from watches on Nodes and CSRs that start before the agent runs.
type timeline struct {
	node string
	mu   sync.Mutex
	seen map[string]time.Time
	// servingCSR is the name of the node's own kubelet-serving CSR.
	servingCSR string
	changed    chan struct{}
}

// watchJoin starts informers for node and CSR events and returns the
// timeline they fill; they stop when ctx ends.
func watchJoin(ctx context.Context, cs kubernetes.Interface, node string) (*timeline, error) {
	tl := &timeline{node: node, seen: map[string]time.Time{}, changed: make(chan struct{}, 1)}
	f := informers.NewSharedInformerFactory(cs, 0)
	nodes := f.Core().V1().Nodes().Informer()
	csrs := f.Certificates().V1().CertificateSigningRequests().Informer()
	if _, err := nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { tl.onNode(obj) },
		UpdateFunc: func(_, obj any) { tl.onNode(obj) },
	}); err != nil {
		return nil, err
	}
	if _, err := csrs.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { tl.onCSR(obj) },
		UpdateFunc: func(_, obj any) { tl.onCSR(obj) },
	}); err != nil {
		return nil, err
	}
	f.Start(ctx.Done())
	for typ, ok := range f.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return nil, fmt.Errorf("sync %v informer: %w", typ, context.Cause(ctx))
		}
	}
	return tl, nil
}

func (tl *timeline) onNode(obj any) {
	n, ok := obj.(*corev1.Node)
	if !ok || n.Name != tl.node {
		return
	}
	tl.mark(msNodeRegistered)
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
			tl.mark(msNodeReady)
		}
	}
}

func (tl *timeline) onCSR(obj any) {
	csr, ok := obj.(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return
	}
	var created, approved, issued string
	switch {
	case csr.Spec.SignerName == certificatesv1.KubeletServingSignerName && csr.Spec.Username == "system:node:"+tl.node:
		tl.mu.Lock()
		if tl.servingCSR == "" {
			tl.servingCSR = csr.Name
		}
		mine := tl.servingCSR == csr.Name
		tl.mu.Unlock()
		if !mine {
			return
		}
		created, approved, issued = msServingCreated, msServingApproved, msServingIssued
	case csr.Spec.SignerName == certificatesv1.KubeAPIServerClientKubeletSignerName:
		created, approved, issued = msClientCSRCreated, msClientCSRApproved, msClientCSRIssued
	default:
		return
	}
	tl.mark(created)
	for _, c := range csr.Status.Conditions {
		if c.Type == certificatesv1.CertificateApproved {
			tl.mark(approved)
		}
	}
	if len(csr.Status.Certificate) > 0 {
		tl.mark(issued)
	}
}

func (tl *timeline) mark(ms string) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if _, ok := tl.seen[ms]; ok {
		return
	}
	tl.seen[ms] = time.Now()
	select {
	case tl.changed <- struct{}{}:
	default:
	}
}

// at returns when ms was seen.
func (tl *timeline) at(ms string) (time.Time, bool) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	t, ok := tl.seen[ms]
	return t, ok
}

// between returns the time from milestone a to b (0, false if either is
// missing).
func (tl *timeline) between(a, b string) (time.Duration, bool) {
	ta, okA := tl.at(a)
	tb, okB := tl.at(b)
	if !okA || !okB {
		return 0, false
	}
	return tb.Sub(ta), true
}

// servingCSRName returns the node's kubelet-serving CSR, once seen.
func (tl *timeline) servingCSRName() string {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return tl.servingCSR
}
