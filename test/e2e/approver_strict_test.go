//go:build e2e

package e2e

import (
	"net"
	"strings"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
)

// strictCase is one CSR the approver must decide with wantReason.
type strictCase struct {
	name       string
	node       worldNode
	key        csrKey
	dns        []string
	ips        []net.IP
	wantReason string
	// wantMessage must appear in the condition's message.
	wantMessage string
}

// TestApproverStrictness runs nodeboot-approver on the real API server,
// configured three ways, against what an attacker holding one node's
// credential tries: without a usable region it must not fall back to the
// Node's (self-written) addresses; with EC2, an instance outside the
// cluster's VPC or account, a subject with more than the node's identity
// and oversized requests are denied, each with its reason; and with
// --ec2-inventory=on it refuses to start without a region or a cluster.
func TestApproverStrictness(t *testing.T) {
	env := loadEnv(t)
	nodes := newWorldNodes(5)
	nodes[1].extraAddresses = []corev1.NodeAddress{
		{Type: corev1.NodeInternalIP, Address: "127.0.0.1"},
		{Type: corev1.NodeHostName, Address: "kubernetes.default.svc"},
		{Type: corev1.NodeExternalDNS, Address: "*"},
	}
	nodes[2].vpc = foreignVPC
	nodes[3].owner = foreignOwner
	// nodes[4] runs pods on secondary IPs (the VPC CNI) and writes two of
	// them into its own status.
	nodes[4].podIPs, nodes[4].cniIPs = []string{"10.1.9.11", "10.1.9.12"}, []string{"10.1.9.21"}
	nodes[4].extraAddresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.1.9.11"}, {Type: corev1.NodeInternalIP, Address: "10.1.9.21"}}
	honest, spoofer, otherVPC, otherAccount, podSpoofer := nodes[0], nodes[1], nodes[2], nodes[3], nodes[4]
	w := startApproverWorld(t, env, nodes)

	t.Run("auto without a region denies what it cannot verify", func(t *testing.T) {
		a := w.startApprover(t, "approver-no-region", []string{"--ec2-inventory=auto", approverClusterFlag}, w.noRegionEnv())
		defer a.stop(10 * time.Second)
		dns, ips := honestSANs(honest)
		w.assertDecisions(t, a, []strictCase{
			{name: "an honest node", node: honest, dns: dns, ips: ips, wantReason: policy.ReasonInventoryUnavailable, wantMessage: "no AWS region"},
			{name: "a node claiming the API server's name it wrote into its own status", node: spoofer,
				dns: []string{spoofer.name, "kubernetes.default.svc"}, ips: []net.IP{net.ParseIP(spoofer.ip)},
				wantReason: policy.ReasonInventoryUnavailable},
			{name: "a node claiming loopback it wrote into its own status", node: spoofer,
				dns: []string{spoofer.name}, ips: []net.IP{net.ParseIP(spoofer.ip), net.ParseIP("127.0.0.1")},
				wantReason: policy.ReasonIPAddressNotGlobalUnicast},
			{name: "a node claiming * it wrote into its own status", node: spoofer,
				dns: []string{spoofer.name, "*"}, ips: []net.IP{net.ParseIP(spoofer.ip)},
				wantReason: policy.ReasonInvalidDNSName},
		})
	})
	t.Run("with EC2", func(t *testing.T) {
		a := w.startApprover(t, "approver-ec2", []string{"--ec2-inventory=on", approverClusterFlag}, w.awsEnv())
		defer a.stop(10 * time.Second)
		dns, ips := honestSANs(honest)
		var many []string
		for i := range 700 {
			many = append(many, strings.Repeat("x", 20)+string(rune('a'+i%26))+".example.com")
		}
		odns, oips := honestSANs(otherVPC)
		adns, aips := honestSANs(otherAccount)
		w.assertDecisions(t, a, []strictCase{
			{name: "an honest node", node: honest, dns: dns, ips: ips, wantReason: policy.ReasonApproved, wantMessage: "EC2 instance " + honest.instanceID},
			{name: "a same-named running instance in another VPC", node: otherVPC, dns: odns, ips: oips,
				wantReason: policy.ReasonInstanceOutsideClusterVPC, wantMessage: `not in the cluster's VPC "` + worldVPC + `"`},
			{name: "an instance of another account", node: otherAccount, dns: adns, ips: aips,
				wantReason: policy.ReasonInstanceOutsideClusterAccount, wantMessage: foreignOwner},
			{name: "OU=system:masters in the subject", node: honest, key: csrKey{orgUnits: []string{"system:masters"}}, dns: dns, ips: ips,
				wantReason: policy.ReasonUnexpectedSubjectAttribute, wantMessage: `OU="system:masters"`},
			{name: "100 SANs", node: honest, dns: dns, ips: repeatIP(ips[0], 100), wantReason: policy.ReasonTooManySANs},
			{name: "a pod's IP (a secondary IP of the instance) the node wrote into its own status", node: podSpoofer,
				dns: []string{podSpoofer.name}, ips: []net.IP{net.ParseIP(podSpoofer.ip), net.ParseIP("10.1.9.11")},
				wantReason: policy.ReasonIPAddressNotPrimary, wantMessage: "IP SAN 10.1.9.11 is a secondary address of EC2 instance " + podSpoofer.instanceID},
			{name: "an address of the CNI's interface the node wrote into its own status", node: podSpoofer,
				dns: []string{podSpoofer.name}, ips: []net.IP{net.ParseIP(podSpoofer.ip), net.ParseIP("10.1.9.21")},
				wantReason: policy.ReasonIPAddressNotPrimary},
			{name: "a request of 700 SANs (over 16 KiB)", node: honest, dns: many, ips: ips, wantReason: policy.ReasonRequestTooLarge},
		})
	})
	t.Run("on refuses to start", func(t *testing.T) {
		for _, tc := range []struct {
			name, want string
			args, env  []string
		}{
			{name: "without a region", want: "no AWS region", args: []string{"--ec2-inventory=on", approverClusterFlag}, env: w.noRegionEnv()},
			{name: "without the cluster's name", want: "the cluster is not named", args: []string{"--ec2-inventory=on"}, env: w.awsEnv()},
		} {
			log, err := w.runApprover(t, "approver-on-"+strings.ReplaceAll(tc.name, " ", "-"), tc.args, tc.env)
			if err == nil || !strings.Contains(err.Error(), "exit status 1") || !strings.Contains(log, tc.want) {
				t.Errorf("%s: exit %v, log:\n%s\nwant exit status 1 and %q", tc.name, err, log, tc.want)
			}
		}
	})
}

// assertDecisions creates each case's CSR with its node's credential and
// checks the approver's decision.
func (w *approverWorld) assertDecisions(t *testing.T, approver *process, cases []strictCase) {
	t.Helper()
	ctx := t.Context()
	names := make([]string, len(cases))
	for i, tc := range cases {
		csr, err := servingCSR(tc.node, tc.key, tc.dns, tc.ips)
		if err != nil {
			t.Fatal(err)
		}
		client, err := w.client(tc.node)
		if err != nil {
			t.Fatal(err)
		}
		got, err := client.CertificatesV1().CertificateSigningRequests().Create(ctx, csr, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("%s: create CSR: %v", tc.name, err)
		}
		names[i] = got.Name
	}
	for i, tc := range cases {
		cond, err := w.decision(ctx, names[i], approver)
		wantType := certificatesv1.CertificateDenied
		if tc.wantReason == policy.ReasonApproved {
			wantType = certificatesv1.CertificateApproved
		}
		switch {
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case cond.Type != wantType || cond.Reason != tc.wantReason || !strings.Contains(cond.Message, tc.wantMessage):
			t.Errorf("%s: %s %s (%s), want %s %s with %q", tc.name, cond.Type, cond.Reason, cond.Message, wantType, tc.wantReason, tc.wantMessage)
		case len(cond.Message) > policy.MaxMessageBytes:
			t.Errorf("%s: message of %d bytes", tc.name, len(cond.Message))
		default:
			t.Logf("%s: %s %s: %s", tc.name, cond.Type, cond.Reason, cond.Message)
		}
	}
}
