//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net"
	"slices"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
)

// assertStatusSpoofDenied plays a node that holds its own credential and
// wants a serving certificate for a neighbour's IP: it adds the IP to its
// own Node's status.addresses (which a kubelet may update), checks that the
// Node now reports it, so that a check against the Node's addresses alone
// would pass, then asks for the certificate. The approver must deny it
// because the IP is not an address of the node's EC2 instance.
func assertStatusSpoofDenied(t *testing.T, c *cluster, node kubernetes.Interface, nodeName string, neighbour net.IP) {
	t.Helper()
	ctx := t.Context()
	spoofed := corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: neighbour.String()}
	if err := editOwnAddresses(ctx, node, nodeName, func(a []corev1.NodeAddress) []corev1.NodeAddress {
		return append(a, spoofed)
	}); err != nil {
		t.Fatalf("node patches its own status: %v", err)
	}
	t.Cleanup(func() {
		// The kubelet rewrites its addresses on its next status update
		// anyway; do not leave the spoof behind meanwhile.
		err := editOwnAddresses(context.Background(), node, nodeName, func(a []corev1.NodeAddress) []corev1.NodeAddress {
			return slices.DeleteFunc(a, func(x corev1.NodeAddress) bool { return x == spoofed })
		})
		if err != nil {
			t.Errorf("remove the spoofed address: %v", err)
		}
	})
	got, err := c.admin.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got.Status.Addresses, spoofed) {
		t.Fatalf("the node's status does not hold the spoofed address %v: %v", spoofed, got.Status.Addresses)
	}
	t.Logf("node %s now reports %s among its addresses %v", nodeName, neighbour, got.Status.Addresses)

	req, err := csrPEM(csrKey{}, "system:node:"+nodeName, []string{nodeName}, []net.IP{neighbour})
	if err != nil {
		t.Fatal(err)
	}
	csr, err := node.CertificatesV1().CertificateSigningRequests().Create(ctx, &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "spoofed-status-"},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request: req, SignerName: certificatesv1.KubeletServingSignerName, Usages: servingUsages,
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create CSR: %v", err)
	}
	cond, err := csrDecision(ctx, c, csr.Name, approverNodeWait+10*time.Second)
	switch {
	case err != nil:
		t.Fatal(err)
	case cond.Type != certificatesv1.CertificateDenied || cond.Reason != policy.ReasonIPAddressNotInstanceAddress:
		t.Fatalf("CSR %s for the spoofed IP: %s %s (%s), want Denied %s", csr.Name, cond.Type, cond.Reason, cond.Message,
			policy.ReasonIPAddressNotInstanceAddress)
	}
	t.Logf("denied as expected: %s: %s", cond.Reason, cond.Message)
}

// editOwnAddresses rewrites the Node's status.addresses with the node's
// own credential, as the kubelet does, retrying on write conflicts with
// the kubelet's status updates.
func editOwnAddresses(ctx context.Context, node kubernetes.Interface, name string, edit func([]corev1.NodeAddress) []corev1.NodeAddress) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := node.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("get own node: %w", err)
		}
		n.Status.Addresses = edit(n.Status.Addresses)
		_, err = node.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
		return err
	})
}
