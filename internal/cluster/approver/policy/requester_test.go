package policy

import (
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy/policytest"
)

func TestRequesterNodeName(t *testing.T) {
	tests := []struct {
		name     string
		user     string
		want     string
		wantNode bool
	}{
		{name: "node", user: "system:node:" + policytest.Node, want: policytest.Node, wantNode: true},
		{name: "empty node name", user: "system:node:"},
		{name: "bootstrap token", user: "system:bootstrap:abcdef"},
		{name: "prefix not at the start", user: "x-system:node:" + policytest.Node},
		{name: "user", user: "alice"},
		{name: "empty", user: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := RequesterNodeName(tc.user)
			if got != tc.want || ok != tc.wantNode {
				t.Fatalf("RequesterNodeName(%q) = %q, %v; want %q, %v", tc.user, got, ok, tc.want, tc.wantNode)
			}
		})
	}
}

func TestPending(t *testing.T) {
	condition := func(typ certificatesv1.RequestConditionType) func(*policytest.Fixture) {
		return func(f *policytest.Fixture) {
			f.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: typ, Status: corev1.ConditionTrue}}
		}
	}
	tests := []struct {
		name   string
		modify func(*policytest.Fixture)
		noCSR  bool
		want   bool
	}{
		{name: "new kubelet serving CSR", want: true},
		{name: "bad CSR still to deny", modify: func(f *policytest.Fixture) { f.Username = "alice" }, want: true},
		{name: "other signer", modify: func(f *policytest.Fixture) { f.Signer = certificatesv1.KubeAPIServerClientKubeletSignerName }},
		{name: "approved", modify: condition(certificatesv1.CertificateApproved)},
		{name: "denied", modify: condition(certificatesv1.CertificateDenied)},
		{name: "failed", modify: condition(certificatesv1.CertificateFailed)},
		{name: "issued", modify: func(f *policytest.Fixture) { f.Status.Certificate = []byte("-----BEGIN CERTIFICATE-----\n") }},
		{name: "no CSR", noCSR: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := policytest.ValidFixture()
			if tc.modify != nil {
				tc.modify(&f)
			}
			csr := policytest.NewCSR(t, f)
			if tc.noCSR {
				csr = nil
			}
			if got := Pending(csr); got != tc.want {
				t.Fatalf("Pending() = %v, want %v", got, tc.want)
			}
		})
	}
}
