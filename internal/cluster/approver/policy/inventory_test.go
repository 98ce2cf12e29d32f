package policy

import (
	"errors"
	"net"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeboot/nodeboot/internal/aws/ec2/ec2instance"
	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy/policytest"
)

// testNeighbour is another node's address in the same subnet.
const testNeighbour = "10.0.0.2"

// home is the cluster's VPC and account in the fixtures.
var home = ClusterHome{VPCID: policytest.VPC, AccountID: policytest.Account}

func byID(instances ...ec2instance.Instance) InventoryAnswer {
	return InventoryAnswer{Key: InstanceKey{ID: policytest.InstanceID}, Instances: instances, Home: home}
}

func byName(instances ...ec2instance.Instance) InventoryAnswer {
	return InventoryAnswer{Key: InstanceKey{PrivateDNSName: policytest.Node}, Instances: instances, Home: home}
}

// elsewhere is the node's instance moved to another VPC or account.
func elsewhere(vpc, account string) ec2instance.Instance {
	in := policytest.Instance()
	in.VPCID, in.OwnerID = vpc, account
	return in
}

func withState(in ec2instance.Instance, id, state string) ec2instance.Instance {
	in.ID, in.State = id, state
	return in
}

func TestDecideInventory(t *testing.T) {
	ec2Policy := Policy{Inventory: InventoryEC2}
	spoofed := nodeWithExtraAddress(policytest.EC2Node(policytest.ProviderID), corev1.NodeInternalIP, testNeighbour)
	neighbourSAN := func(f *policytest.Fixture) { f.Request.IPAddresses = []net.IP{net.ParseIP(testNeighbour)} }
	renamed := policytest.Instance()
	renamed.PrivateDNSName = policytest.OtherNode
	byInstanceID := policytest.NewNode(policytest.InstanceID)
	tests := []struct {
		name        string
		modify      func(*policytest.Fixture)
		node        *corev1.Node
		answer      InventoryAnswer
		policy      Policy
		wantReason  string
		wantMessage string
	}{
		{
			name: "honest node, instance found by providerID", node: policytest.EC2Node(policytest.ProviderID), answer: byID(policytest.Instance()), policy: ec2Policy,
			wantReason:  ReasonApproved,
			wantMessage: `SANs [DNS:ip-10-0-0-1.ec2.internal, IP:10.0.0.1] match the node's addresses and EC2 instance i-0123456789abcdef0`,
		},
		{
			name: "every address type of the instance", node: policytest.EC2Node(policytest.ProviderID), answer: byID(policytest.Instance()), policy: ec2Policy,
			modify: func(f *policytest.Fixture) {
				f.Request.DNSNames = []string{strings.ToUpper(policytest.Node), "ec2-54-1-2-3.compute-1.amazonaws.com"}
				f.Request.IPAddresses = []net.IP{net.ParseIP("10.0.0.1"), net.ParseIP("fd00:ec2::1"), net.ParseIP("54.1.2.3"), net.ParseIP("::ffff:10.0.0.1")}
			},
			wantReason: ReasonApproved,
		},
		{
			name: "status spoof passes the node check alone (the check is off)", node: spoofed, answer: byID(policytest.Instance()),
			modify: neighbourSAN, wantReason: ReasonApproved,
		},
		{
			name: "status spoof: neighbour's IP patched into the node's own status", node: spoofed, answer: byID(policytest.Instance()), policy: ec2Policy,
			modify:      neighbourSAN,
			wantReason:  ReasonIPAddressNotInstanceAddress,
			wantMessage: `IP SAN 10.0.0.2 is not an address of EC2 instance i-0123456789abcdef0 of node "ip-10-0-0-1.ec2.internal" (instance addresses [10.0.0.1 fd00:ec2::1 54.1.2.3])`,
		},
		{
			name: "status spoof: neighbour's name patched into the node's own status", policy: ec2Policy, answer: byID(policytest.Instance()),
			node:        nodeWithExtraAddress(policytest.EC2Node(policytest.ProviderID), corev1.NodeInternalDNS, policytest.OtherNode),
			modify:      func(f *policytest.Fixture) { f.Request.DNSNames = []string{policytest.Node, policytest.OtherNode} },
			wantReason:  ReasonDNSNameNotInstanceAddress,
			wantMessage: `DNS SAN "ip-10-0-0-2.ec2.internal" is not a DNS name of EC2 instance i-0123456789abcdef0`,
		},
		{
			name: "the instance's secondary IP (a pod's), which the node does not report", node: policytest.EC2Node(policytest.ProviderID),
			answer: byID(policytest.Instance()), policy: ec2Policy,
			modify:     func(f *policytest.Fixture) { f.Request.IPAddresses = []net.IP{net.ParseIP(policytest.SecondaryIP)} },
			wantReason: ReasonIPAddressNotPrimary,
		},
		{
			name: "status spoof: the instance's own secondary IP (a pod's) patched into the node's status", policy: ec2Policy, answer: byID(policytest.Instance()),
			node: nodeWithExtraAddress(policytest.EC2Node(policytest.ProviderID), corev1.NodeInternalIP, policytest.SecondaryIP),
			modify: func(f *policytest.Fixture) {
				f.Request.IPAddresses = []net.IP{net.ParseIP("10.0.0.1"), net.ParseIP(policytest.SecondaryIP)}
			},
			wantReason: ReasonIPAddressNotPrimary,
			wantMessage: `IP SAN 10.0.0.9 is a secondary address of EC2 instance i-0123456789abcdef0 of node "ip-10-0-0-1.ec2.internal", ` +
				`which the VPC CNI gives to pods and which can move to another instance; only the instance's own addresses [10.0.0.1 fd00:ec2::1 54.1.2.3] are certified`,
		},
		{
			name: "instance not found", node: policytest.EC2Node(policytest.ProviderID), answer: byID(), policy: ec2Policy,
			wantReason:  ReasonInstanceNotFound,
			wantMessage: `node "ip-10-0-0-1.ec2.internal": EC2 knows no instance i-0123456789abcdef0`,
		},
		{
			name: "instance terminated", node: policytest.EC2Node(policytest.ProviderID), answer: byID(withState(policytest.Instance(), policytest.InstanceID, "terminated")), policy: ec2Policy,
			wantReason:  ReasonInstanceNotRunning,
			wantMessage: `EC2 instance i-0123456789abcdef0 is i-0123456789abcdef0 terminated, not running`,
		},
		{
			name: "answer without the instance asked for", node: policytest.EC2Node(policytest.ProviderID), answer: byID(withState(policytest.Instance(), "i-0fedcba9876543210", "running")), policy: ec2Policy,
			wantReason: ReasonInstanceNotFound,
		},
		{name: "providerID without zone (aws:////id)", node: policytest.EC2Node("aws:////" + policytest.InstanceID), answer: byID(policytest.Instance()), policy: ec2Policy, wantReason: ReasonApproved},
		{name: "providerID aws:///id", node: policytest.EC2Node("aws:///" + policytest.InstanceID), answer: byID(policytest.Instance()), policy: ec2Policy, wantReason: ReasonApproved},
		{name: "providerID aws://zone/id", node: policytest.EC2Node("aws://" + policytest.Zone + "/" + policytest.InstanceID), answer: byID(policytest.Instance()), policy: ec2Policy, wantReason: ReasonApproved},
		{name: "bare instance ID as providerID", node: policytest.EC2Node(policytest.InstanceID), answer: byID(policytest.Instance()), policy: ec2Policy, wantReason: ReasonApproved},
		{
			name: "Fargate providerID", node: policytest.EC2Node("aws:///us-east-1a/fa-0123/fargate-ip-10-0-0-1.ec2.internal"), answer: byID(policytest.Instance()), policy: ec2Policy,
			wantReason:  ReasonNotEC2Instance,
			wantMessage: `cannot be checked against EC2: not an EC2 instance: providerID "aws:///us-east-1a/fa-0123/fargate-ip-10-0-0-1.ec2.internal" is not aws:///<zone>/<instance ID>`,
		},
		{
			name: "another cloud's providerID", node: policytest.EC2Node("gce://project/us-central1-a/node-1"), answer: byID(policytest.Instance()), policy: ec2Policy,
			wantReason: ReasonNotEC2Instance, wantMessage: `providerID "gce://project/us-central1-a/node-1" is not aws://`,
		},
		{
			name: "providerID with a malformed instance ID", node: policytest.EC2Node("aws:///us-east-1a/i-XYZ"), answer: byID(policytest.Instance()), policy: ec2Policy,
			wantReason: ReasonNotEC2Instance, wantMessage: `names "i-XYZ", not an instance ID`,
		},
		{
			name: "providerID with a malformed zone", node: policytest.EC2Node("aws:///US EAST/" + policytest.InstanceID), answer: byID(policytest.Instance()), policy: ec2Policy,
			wantReason: ReasonNotEC2Instance, wantMessage: `malformed aws providerID`,
		},
		{
			name: "providerID names a neighbour's instance", node: policytest.EC2Node(policytest.ProviderID), answer: byID(renamed), policy: ec2Policy,
			wantReason:  ReasonInstanceMismatch,
			wantMessage: `node "ip-10-0-0-1.ec2.internal" is not EC2 instance i-0123456789abcdef0, whose private DNS name is "ip-10-0-0-2.ec2.internal"`,
		},
		{
			name: "providerID names another zone", node: policytest.EC2Node("aws:///us-east-1b/" + policytest.InstanceID), answer: byID(policytest.Instance()), policy: ec2Policy,
			wantReason: ReasonInstanceMismatch, wantMessage: `but EC2 instance i-0123456789abcdef0 is in "us-east-1a"`,
		},
		{name: "no providerID: found by private DNS name", node: policytest.EC2Node(""), answer: byName(policytest.Instance()), policy: ec2Policy, wantReason: ReasonApproved},
		{
			name: "no providerID: a terminated instance held the name before", node: policytest.EC2Node(""), policy: ec2Policy,
			answer: byName(withState(policytest.Instance(), "i-0aaaaaaaaaaaaaaa0", "terminated"), policytest.Instance()), wantReason: ReasonApproved,
		},
		{
			name: "no providerID: the name is in use in two VPCs", node: policytest.EC2Node(""), policy: ec2Policy,
			answer:      byName(policytest.Instance(), withState(policytest.Instance(), "i-0aaaaaaaaaaaaaaa1", "running")),
			wantReason:  ReasonAmbiguousInstance,
			wantMessage: `2 running EC2 instances have private DNS name ip-10-0-0-1.ec2.internal (i-0123456789abcdef0, i-0aaaaaaaaaaaaaaa1)`,
		},
		{
			name: "no providerID: answer for another key", node: policytest.EC2Node(""), answer: byID(policytest.Instance()), policy: ec2Policy,
			wantReason:  ReasonInventoryLookupFailed,
			wantMessage: `no EC2 inventory answer for node "ip-10-0-0-1.ec2.internal" (private DNS name ip-10-0-0-1.ec2.internal)`,
		},
		{
			name: "node named by its instance ID", node: byInstanceID, answer: byID(policytest.Instance()), policy: ec2Policy,
			modify: func(f *policytest.Fixture) {
				f.Username = NodeUserPrefix + policytest.InstanceID
				f.Request.Subject.CommonName = NodeUserPrefix + policytest.InstanceID
				f.Request.DNSNames = []string{policytest.InstanceID}
			},
			wantReason: ReasonApproved,
		},
		{
			name: "lookup throttled", node: policytest.EC2Node(policytest.ProviderID), policy: ec2Policy,
			answer:      InventoryAnswer{Key: InstanceKey{ID: policytest.InstanceID}, Err: errors.New("RequestLimitExceeded"), Transient: true},
			wantReason:  ReasonInventoryUnreachable,
			wantMessage: `EC2 inventory lookup of instance i-0123456789abcdef0 for node "ip-10-0-0-1.ec2.internal" failed: RequestLimitExceeded`,
		},
		{
			name: "lookup denied by IAM", node: policytest.EC2Node(policytest.ProviderID), policy: ec2Policy,
			answer:      InventoryAnswer{Key: InstanceKey{ID: policytest.InstanceID}, Err: errors.New("UnauthorizedOperation")},
			wantReason:  ReasonInventoryLookupFailed,
			wantMessage: `failed: UnauthorizedOperation`,
		},
		{
			name: "no answer at all", node: policytest.EC2Node(policytest.ProviderID), policy: ec2Policy,
			wantReason: ReasonInventoryLookupFailed,
		},
		{
			name: "bad CSR is denied for itself before the inventory", node: policytest.EC2Node(policytest.ProviderID), policy: ec2Policy,
			answer:     InventoryAnswer{Key: InstanceKey{ID: policytest.InstanceID}, Err: errors.New("throttled"), Transient: true},
			modify:     func(f *policytest.Fixture) { f.Usages = append(f.Usages, "client auth") },
			wantReason: ReasonUsageNotAllowed,
		},
		{
			name: "missing node is waited for before the inventory", policy: ec2Policy,
			wantReason: ReasonNodeNotFound,
		},
		{
			name: "same-named running instance in another VPC", node: policytest.EC2Node(policytest.ProviderID), policy: ec2Policy,
			answer:      byID(elsewhere("vpc-0ffffffffffffffff", policytest.Account)),
			wantReason:  ReasonInstanceOutsideClusterVPC,
			wantMessage: `EC2 instance i-0123456789abcdef0 is in VPC "vpc-0ffffffffffffffff", not in the cluster's VPC "vpc-0123456789abcdef0"`,
		},
		{
			name: "instance of another account", node: policytest.EC2Node(policytest.ProviderID), policy: ec2Policy,
			answer:      byID(elsewhere(policytest.VPC, "444455556666")),
			wantReason:  ReasonInstanceOutsideClusterAccount,
			wantMessage: `belongs to account "444455556666", not to the cluster's account "111122223333"`,
		},
		{
			name: "no providerID: the name's only running instance is in another VPC", node: policytest.EC2Node(""), policy: ec2Policy,
			answer:     byName(elsewhere("vpc-0ffffffffffffffff", policytest.Account)),
			wantReason: ReasonInstanceOutsideClusterVPC,
		},
		{
			name: "answer without the cluster's VPC", node: policytest.EC2Node(policytest.ProviderID), policy: ec2Policy,
			answer:      InventoryAnswer{Key: InstanceKey{ID: policytest.InstanceID}, Instances: []ec2instance.Instance{policytest.Instance()}},
			wantReason:  ReasonInventoryLookupFailed,
			wantMessage: `the cluster's VPC and account are unknown`,
		},
		{
			name: "no EC2 access: an EC2 node is denied", node: policytest.EC2Node(policytest.ProviderID),
			policy:      Policy{Inventory: InventoryUnavailable, InventoryProblem: "no AWS region found: set --aws-region"},
			wantReason:  ReasonInventoryUnavailable,
			wantMessage: `node "ip-10-0-0-1.ec2.internal" cannot be verified against EC2, and a Node's own addresses are not trusted alone: no AWS region found: set --aws-region`,
		},
		{
			name: "no EC2 access: a node without a providerID is denied too", node: policytest.EC2Node(""), policy: Policy{Inventory: InventoryUnavailable},
			wantReason: ReasonInventoryUnavailable, wantMessage: "turn the check off with --ec2-inventory=off",
		},
		{
			name: "no EC2 access: a node claiming another cloud is denied too", node: policytest.EC2Node("kind://docker/kind/worker"), policy: Policy{Inventory: InventoryUnavailable},
			wantReason: ReasonInventoryUnavailable,
		},
		{
			name: "check off: the answer is not read", node: policytest.EC2Node(policytest.ProviderID), answer: byID(), wantReason: ReasonApproved,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := policytest.ValidFixture()
			if tc.modify != nil {
				tc.modify(&f)
			}
			got := Decide(policytest.NewCSR(t, f), tc.node, tc.answer, tc.policy)
			if got.Reason != tc.wantReason || got.Approve != (tc.wantReason == ReasonApproved) {
				t.Fatalf("Decide() = {Approve:%v Reason:%s}, want reason %s; message: %s", got.Approve, got.Reason, tc.wantReason, got.Message)
			}
			if !strings.Contains(got.Message, tc.wantMessage) {
				t.Errorf("Decide() message = %q, want it to contain %q", got.Message, tc.wantMessage)
			}
			if got.InventoryTransient() != (tc.wantReason == ReasonInventoryUnreachable) {
				t.Errorf("InventoryTransient() = %v for reason %s", got.InventoryTransient(), got.Reason)
			}
		})
	}
}

func TestInstanceKeyFor(t *testing.T) {
	tests := []struct {
		name       string
		nodeName   string
		providerID string
		want       InstanceKey
		wantErr    error
	}{
		{name: "standard providerID", nodeName: policytest.Node, providerID: policytest.ProviderID, want: InstanceKey{ID: policytest.InstanceID}},
		{name: "short instance ID", nodeName: policytest.Node, providerID: "aws:///us-east-1a/i-0123abcd", want: InstanceKey{ID: "i-0123abcd"}},
		{name: "local zone", nodeName: policytest.Node, providerID: "aws:///us-west-2-lax-1a/" + policytest.InstanceID, want: InstanceKey{ID: policytest.InstanceID}},
		{name: "no providerID", nodeName: policytest.Node, want: InstanceKey{PrivateDNSName: policytest.Node}},
		{name: "resource-name hostname", nodeName: policytest.InstanceID + ".us-east-1.compute.internal", want: InstanceKey{PrivateDNSName: policytest.InstanceID + ".us-east-1.compute.internal"}},
		{name: "node named by instance ID", nodeName: policytest.InstanceID, want: InstanceKey{ID: policytest.InstanceID}},
		{name: "upper-case hex is not an instance ID", nodeName: policytest.Node, providerID: "aws:///us-east-1a/i-0123456789ABCDEF0", wantErr: ErrNotEC2Instance},
		{name: "wrong length", nodeName: policytest.Node, providerID: "aws:///us-east-1a/i-0123", wantErr: ErrNotEC2Instance},
		{name: "empty aws providerID", nodeName: policytest.Node, providerID: "aws://", wantErr: ErrNotEC2Instance},
		{name: "extra path element", nodeName: policytest.Node, providerID: "aws:///us-east-1a/" + policytest.InstanceID + "/x", wantErr: ErrNotEC2Instance},
		{name: "zone in host and path", nodeName: policytest.Node, providerID: "aws://us-east-1a/us-east-1a/" + policytest.InstanceID, wantErr: ErrNotEC2Instance},
		{name: "overlong", nodeName: policytest.Node, providerID: "aws:///" + strings.Repeat("a", 300) + "/" + policytest.InstanceID, wantErr: ErrMalformedProviderID},
		{name: "other scheme", nodeName: policytest.Node, providerID: "azure:///subscriptions/x", wantErr: ErrNotEC2Instance},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := policytest.NewNode(tc.nodeName)
			n.Spec.ProviderID = tc.providerID
			got, err := InstanceKeyFor(n)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("InstanceKeyFor() error = %v, want %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Fatalf("InstanceKeyFor() = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// FuzzInstanceKeyFor feeds node-controlled providerIDs and names to the
// parser: it must not panic, and whatever it accepts must be a valid
// instance ID or the node name.
func FuzzInstanceKeyFor(f *testing.F) {
	for _, pid := range []string{policytest.ProviderID, "aws:////" + policytest.InstanceID, "aws://z/" + policytest.InstanceID, policytest.InstanceID, "", "aws://", "aws:///a/b/c", "gce://x"} {
		f.Add(policytest.Node, pid)
	}
	f.Fuzz(func(t *testing.T, name, providerID string) {
		n := policytest.NewNode(name)
		n.Spec.ProviderID = providerID
		key, err := InstanceKeyFor(n)
		switch {
		case err != nil:
			if key != (InstanceKey{}) {
				t.Fatalf("InstanceKeyFor() = %+v with error %v", key, err)
			}
		case key.ID != "":
			if !isInstanceID(key.ID) || key.PrivateDNSName != "" {
				t.Fatalf("InstanceKeyFor() = %+v: not an instance ID", key)
			}
		case key.PrivateDNSName != name || providerID != "":
			t.Fatalf("InstanceKeyFor(%q, %q) = %+v: a name lookup must be for the node name without providerID", name, providerID, key)
		}
	})
}

// TestNeedsInventory: the answer is asked for only when Decide will read
// it. A CSR denied for itself needs none, but its signature is not
// verified ahead: Decide verifies it once and denies it for that.
func TestNeedsInventory(t *testing.T) {
	ec2 := Policy{Inventory: InventoryEC2}
	node := policytest.EC2Node(policytest.ProviderID)
	for _, tc := range []struct {
		name   string
		modify func(*policytest.Fixture)
		policy Policy
		noNode bool
		want   bool
	}{
		{name: "valid", policy: ec2, want: true},
		{name: "check off", policy: Policy{Inventory: InventoryOff}},
		{name: "no EC2 access", policy: Policy{Inventory: InventoryUnavailable}},
		{name: "node missing", policy: ec2, noNode: true},
		{name: "client auth usage", policy: ec2, modify: func(f *policytest.Fixture) { f.Usages = append(f.Usages, "client auth") }},
		{name: "extra OU", policy: ec2, modify: func(f *policytest.Fixture) { f.Request.Subject.OrganizationalUnit = []string{"system:masters"} }},
		{name: "bad signature: verified by Decide only", policy: ec2, want: true, modify: func(f *policytest.Fixture) {
			f.Tamper = replaceOnce([]byte{0x87, 4, 10, 0, 0, 1}, []byte{0x87, 4, 10, 0, 0, 9})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := policytest.ValidFixture()
			if tc.modify != nil {
				tc.modify(&f)
			}
			csr := policytest.NewCSR(t, f)
			n := node
			if tc.noNode {
				n = nil
			}
			if got := NeedsInventory(csr, n, tc.policy); got != tc.want {
				t.Fatalf("NeedsInventory = %v, want %v", got, tc.want)
			}
		})
	}
}
