//go:build e2e

package e2e

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"

	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
)

// nodeExpectations is what the Node object must show.
type nodeExpectations struct {
	name       string
	internalIP string
	providerID string
	labels     map[string]string
	taints     []corev1.Taint
}

// assertNodeObject checks the registered Node against the user data and
// the rendered kubelet config.
func assertNodeObject(t *testing.T, got *corev1.Node, want nodeExpectations, cfg kubeletv1beta1.KubeletConfiguration) {
	t.Helper()
	for k, v := range want.labels {
		if got.Labels[k] != v {
			t.Errorf("node label %s = %q, want %q (from kubelet.flags --node-labels)", k, got.Labels[k], v)
		}
	}
	if h := got.Labels[corev1.LabelHostname]; h != want.name {
		t.Errorf("node label %s = %q, want %q", corev1.LabelHostname, h, want.name)
	}
	for _, w := range want.taints {
		if !slices.ContainsFunc(got.Spec.Taints, func(g corev1.Taint) bool {
			return g.Key == w.Key && g.Value == w.Value && g.Effect == w.Effect
		}) {
			t.Errorf("node taints %v lack %s (from kubelet.flags --register-with-taints)", got.Spec.Taints, w.ToString())
		}
	}
	if got.Spec.ProviderID != want.providerID {
		t.Errorf("node providerID = %q, want %q", got.Spec.ProviderID, want.providerID)
	}
	wantAddrs := map[corev1.NodeAddressType]string{corev1.NodeInternalIP: want.internalIP, corev1.NodeHostName: want.name}
	for typ, addr := range wantAddrs {
		if !slices.Contains(got.Status.Addresses, corev1.NodeAddress{Type: typ, Address: addr}) {
			t.Errorf("node addresses %v lack %s %s", got.Status.Addresses, typ, addr)
		}
	}
	assertCapacity(t, got.Status.Capacity, got.Status.Allocatable, cfg)
}

// assertCapacity checks pods capacity = maxPods and, for cpu, memory and
// ephemeral-storage, capacity − allocatable = kubeReserved + systemReserved
// + the hard eviction threshold, computed the way the kubelet does.
func assertCapacity(t *testing.T, capacity, allocatable corev1.ResourceList, cfg kubeletv1beta1.KubeletConfiguration) {
	t.Helper()
	if cfg.MaxPods == 0 {
		t.Errorf("rendered kubelet config has no maxPods")
	} else if pods := capacity[corev1.ResourcePods]; pods.Value() != int64(cfg.MaxPods) {
		t.Errorf("capacity.pods = %s, want rendered maxPods %d", pods.String(), cfg.MaxPods)
	}
	reserved, err := expectedReservation(cfg, capacity)
	if err != nil {
		t.Fatalf("compute reservation: %v", err)
	}
	for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage} {
		c, a := capacity[res], allocatable[res]
		diff := c.DeepCopy()
		diff.Sub(a)
		want := reserved[res]
		if diff.Cmp(want) != 0 {
			t.Errorf("%s: capacity %s − allocatable %s = %s, want %s (kubeReserved %q, systemReserved %q, evictionHard %v)",
				res, c.String(), a.String(), diff.String(), want.String(),
				cfg.KubeReserved[string(res)], cfg.SystemReserved[string(res)], cfg.EvictionHard)
		}
	}
}

// evictionResource maps hard eviction signals to the resource whose
// allocatable they reduce (pkg/kubelet/cm: hardEvictionReservation).
var evictionResource = map[string]corev1.ResourceName{
	"memory.available":  corev1.ResourceMemory,
	"nodefs.available":  corev1.ResourceEphemeralStorage,
	"pid.available":     "pid",
	"imagefs.available": "", // not reserved from allocatable
}

// expectedReservation returns kubeReserved + systemReserved + hard
// eviction thresholds per resource. Percentage thresholds are evaluated
// against capacity as the kubelet does: a float32 fraction applied to the
// capacity's int64 value, truncated.
func expectedReservation(cfg kubeletv1beta1.KubeletConfiguration, capacity corev1.ResourceList) (map[corev1.ResourceName]resource.Quantity, error) {
	out := map[corev1.ResourceName]resource.Quantity{}
	add := func(name corev1.ResourceName, q resource.Quantity) {
		sum := out[name]
		sum.Add(q)
		out[name] = sum
	}
	for _, m := range []map[string]string{cfg.KubeReserved, cfg.SystemReserved} {
		for k, v := range m {
			q, err := resource.ParseQuantity(v)
			if err != nil {
				return nil, fmt.Errorf("reserved %s=%q: %w", k, v, err)
			}
			add(corev1.ResourceName(k), q)
		}
	}
	for signal, v := range cfg.EvictionHard {
		res, known := evictionResource[signal]
		if !known || res == "" || res == "pid" {
			continue
		}
		if pct, ok := strings.CutSuffix(v, "%"); ok {
			p, err := strconv.ParseFloat(pct, 32)
			if err != nil {
				return nil, fmt.Errorf("evictionHard %s=%q: %w", signal, v, err)
			}
			fraction := float32(p) / 100
			c := capacity[res]
			add(res, *resource.NewQuantity(int64(float64(c.Value())*float64(fraction)), resource.BinarySI))
			continue
		}
		q, err := resource.ParseQuantity(v)
		if err != nil {
			return nil, fmt.Errorf("evictionHard %s=%q: %w", signal, v, err)
		}
		add(res, q)
	}
	return out, nil
}

// assertServingCSR checks that the node's kubelet-serving CSR was approved
// by nodeboot-approver (its reason and message) and issued by the cluster
// CA for exactly the node's name and IP.
func assertServingCSR(t *testing.T, csr *certificatesv1.CertificateSigningRequest, ca *x509.Certificate, nodeName, nodeIP string) {
	t.Helper()
	var approved *certificatesv1.CertificateSigningRequestCondition
	for i, c := range csr.Status.Conditions {
		if c.Type == certificatesv1.CertificateDenied || c.Type == certificatesv1.CertificateFailed {
			t.Errorf("serving CSR %s has condition %s: %s: %s", csr.Name, c.Type, c.Reason, c.Message)
		}
		if c.Type == certificatesv1.CertificateApproved {
			approved = &csr.Status.Conditions[i]
		}
	}
	if approved == nil {
		t.Fatalf("serving CSR %s not approved: %+v", csr.Name, csr.Status.Conditions)
	}
	wantMsg := fmt.Sprintf("kubelet serving certificate for node %q", nodeName)
	if approved.Reason != policy.ReasonApproved || !strings.Contains(approved.Message, wantMsg) {
		t.Errorf("serving CSR %s approved with reason %q message %q; want nodeboot-approver's %q containing %q",
			csr.Name, approved.Reason, approved.Message, policy.ReasonApproved, wantMsg)
	}
	block, _ := pem.Decode(csr.Status.Certificate)
	if block == nil {
		t.Fatalf("serving CSR %s has no issued certificate", csr.Name)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatalf("parse issued serving certificate: %v", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	if _, err := cert.Verify(x509.VerifyOptions{DNSName: nodeName, Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		t.Errorf("issued serving certificate does not verify for %s against the cluster CA: %v", nodeName, err)
	}
	var ips []string
	for _, ip := range cert.IPAddresses {
		ips = append(ips, ip.String())
	}
	if !slices.Equal(cert.DNSNames, []string{nodeName}) || !slices.Equal(ips, []string{nodeIP}) {
		t.Errorf("serving certificate SANs DNS %v IP %v, want DNS [%s] IP [%s]", cert.DNSNames, ips, nodeName, nodeIP)
	}
}

// csrDecision waits for the first Approved or Denied condition of a CSR.
func csrDecision(ctx context.Context, c *cluster, name string, timeout time.Duration) (certificatesv1.CertificateSigningRequestCondition, error) {
	return waitDecision(ctx, c.admin, name, timeout, c.approver)
}

// waitDecision waits for the first Approved or Denied condition of CSR
// name, failing early if the approver process exits.
func waitDecision(ctx context.Context, admin kubernetes.Interface, name string, timeout time.Duration, approver *process) (certificatesv1.CertificateSigningRequestCondition, error) {
	var got certificatesv1.CertificateSigningRequestCondition
	err := waitUntil(ctx, "decision on CSR "+name, timeout, 50*time.Millisecond, []*process{approver},
		func(ctx context.Context) (bool, string, error) {
			csr, err := admin.CertificatesV1().CertificateSigningRequests().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err.Error(), nil
			}
			for _, cond := range csr.Status.Conditions {
				if cond.Type == certificatesv1.CertificateApproved || cond.Type == certificatesv1.CertificateDenied {
					got = cond
					return true, "", nil
				}
			}
			return false, "undecided", nil
		})
	return got, err
}
