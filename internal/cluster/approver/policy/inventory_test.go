package policy

import (
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeboot/nodeboot/internal/aws/ec2/ec2instance"
)

const (
	testInstanceID = "i-0123456789abcdef0"
	testZone       = "us-east-1a"
	testProviderID = "aws:///" + testZone + "/" + testInstanceID
	// testNeighbour is another node's address in the same subnet.
	testNeighbour = "10.0.0.2"
)

// testInstance is the EC2 instance behind testNode: the Node's addresses
// plus a secondary private IP the Node does not report.
func testInstance() ec2instance.Instance {
	return ec2instance.Instance{
		ID: testInstanceID, State: "running", AvailabilityZone: testZone,
		PrivateDNSName: testNode, PublicDNSName: "ec2-54-1-2-3.compute-1.amazonaws.com",
		PrivateIPs: []netip.Addr{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.9")},
		IPv6s:      []netip.Addr{netip.MustParseAddr("fd00:ec2::1")},
		PublicIP:   netip.MustParseAddr("54.1.2.3"),
	}
}

// ec2Node is newNode with the providerID the kubelet sets on EC2.
func ec2Node(providerID string) *corev1.Node {
	n := newNode(testNode)
	n.Spec.ProviderID = providerID
	return n
}

func byID(instances ...ec2instance.Instance) InventoryAnswer {
	return InventoryAnswer{Key: InstanceKey{ID: testInstanceID}, Instances: instances}
}

func byName(instances ...ec2instance.Instance) InventoryAnswer {
	return InventoryAnswer{Key: InstanceKey{PrivateDNSName: testNode}, Instances: instances}
}

func withState(in ec2instance.Instance, id, state string) ec2instance.Instance {
	in.ID, in.State = id, state
	return in
}

func TestDecideInventory(t *testing.T) {
	ec2Policy := Policy{Inventory: InventoryEC2}
	spoofed := nodeWithExtraAddress(ec2Node(testProviderID), corev1.NodeInternalIP, testNeighbour)
	neighbourSAN := func(f *fixture) { f.request.IPAddresses = []net.IP{net.ParseIP(testNeighbour)} }
	renamed := testInstance()
	renamed.PrivateDNSName = testOtherNode
	byInstanceID := newNode(testInstanceID)
	tests := []struct {
		name        string
		modify      func(*fixture)
		node        *corev1.Node
		answer      InventoryAnswer
		policy      Policy
		wantReason  string
		wantMessage string
	}{
		{
			name: "honest node, instance found by providerID", node: ec2Node(testProviderID), answer: byID(testInstance()), policy: ec2Policy,
			wantReason:  ReasonApproved,
			wantMessage: `SANs [DNS:ip-10-0-0-1.ec2.internal, IP:10.0.0.1] match the node's addresses and EC2 instance i-0123456789abcdef0`,
		},
		{
			name: "every address type of the instance", node: ec2Node(testProviderID), answer: byID(testInstance()), policy: ec2Policy,
			modify: func(f *fixture) {
				f.request.DNSNames = []string{strings.ToUpper(testNode), "ec2-54-1-2-3.compute-1.amazonaws.com"}
				f.request.IPAddresses = []net.IP{net.ParseIP("10.0.0.1"), net.ParseIP("fd00:ec2::1"), net.ParseIP("54.1.2.3"), net.ParseIP("::ffff:10.0.0.1")}
			},
			wantReason: ReasonApproved,
		},
		{
			name: "status spoof passes the node check alone (the check is off)", node: spoofed, answer: byID(testInstance()),
			modify: neighbourSAN, wantReason: ReasonApproved,
		},
		{
			name: "status spoof: neighbour's IP patched into the node's own status", node: spoofed, answer: byID(testInstance()), policy: ec2Policy,
			modify:      neighbourSAN,
			wantReason:  ReasonIPAddressNotInstanceAddress,
			wantMessage: `IP SAN 10.0.0.2 is not an address of EC2 instance i-0123456789abcdef0 of node "ip-10-0-0-1.ec2.internal" (instance addresses [10.0.0.1 10.0.0.9 fd00:ec2::1 54.1.2.3])`,
		},
		{
			name: "status spoof: neighbour's name patched into the node's own status", policy: ec2Policy, answer: byID(testInstance()),
			node:        nodeWithExtraAddress(ec2Node(testProviderID), corev1.NodeInternalDNS, testOtherNode),
			modify:      func(f *fixture) { f.request.DNSNames = []string{testNode, testOtherNode} },
			wantReason:  ReasonDNSNameNotInstanceAddress,
			wantMessage: `DNS SAN "ip-10-0-0-2.ec2.internal" is not a DNS name of EC2 instance i-0123456789abcdef0`,
		},
		{
			name: "instance address the node does not report", node: ec2Node(testProviderID), answer: byID(testInstance()), policy: ec2Policy,
			modify:     func(f *fixture) { f.request.IPAddresses = []net.IP{net.ParseIP("10.0.0.9")} },
			wantReason: ReasonIPAddressNotNodeAddress,
		},
		{
			name: "instance not found", node: ec2Node(testProviderID), answer: byID(), policy: ec2Policy,
			wantReason:  ReasonInstanceNotFound,
			wantMessage: `node "ip-10-0-0-1.ec2.internal": EC2 knows no instance i-0123456789abcdef0`,
		},
		{
			name: "instance terminated", node: ec2Node(testProviderID), answer: byID(withState(testInstance(), testInstanceID, "terminated")), policy: ec2Policy,
			wantReason:  ReasonInstanceNotRunning,
			wantMessage: `EC2 instance i-0123456789abcdef0 is i-0123456789abcdef0 terminated, not running`,
		},
		{
			name: "answer without the instance asked for", node: ec2Node(testProviderID), answer: byID(withState(testInstance(), "i-0fedcba9876543210", "running")), policy: ec2Policy,
			wantReason: ReasonInstanceNotFound,
		},
		{name: "providerID without zone (aws:////id)", node: ec2Node("aws:////" + testInstanceID), answer: byID(testInstance()), policy: ec2Policy, wantReason: ReasonApproved},
		{name: "providerID aws:///id", node: ec2Node("aws:///" + testInstanceID), answer: byID(testInstance()), policy: ec2Policy, wantReason: ReasonApproved},
		{name: "providerID aws://zone/id", node: ec2Node("aws://" + testZone + "/" + testInstanceID), answer: byID(testInstance()), policy: ec2Policy, wantReason: ReasonApproved},
		{name: "bare instance ID as providerID", node: ec2Node(testInstanceID), answer: byID(testInstance()), policy: ec2Policy, wantReason: ReasonApproved},
		{
			name: "Fargate providerID", node: ec2Node("aws:///us-east-1a/fa-0123/fargate-ip-10-0-0-1.ec2.internal"), answer: byID(testInstance()), policy: ec2Policy,
			wantReason:  ReasonNotEC2Instance,
			wantMessage: `cannot be checked against EC2: not an EC2 instance: providerID "aws:///us-east-1a/fa-0123/fargate-ip-10-0-0-1.ec2.internal" is not aws:///<zone>/<instance ID>`,
		},
		{
			name: "another cloud's providerID", node: ec2Node("gce://project/us-central1-a/node-1"), answer: byID(testInstance()), policy: ec2Policy,
			wantReason: ReasonNotEC2Instance, wantMessage: `providerID "gce://project/us-central1-a/node-1" is not aws://`,
		},
		{
			name: "providerID with a malformed instance ID", node: ec2Node("aws:///us-east-1a/i-XYZ"), answer: byID(testInstance()), policy: ec2Policy,
			wantReason: ReasonNotEC2Instance, wantMessage: `names "i-XYZ", not an instance ID`,
		},
		{
			name: "providerID with a malformed zone", node: ec2Node("aws:///US EAST/" + testInstanceID), answer: byID(testInstance()), policy: ec2Policy,
			wantReason: ReasonNotEC2Instance, wantMessage: `malformed aws providerID`,
		},
		{
			name: "providerID names a neighbour's instance", node: ec2Node(testProviderID), answer: byID(renamed), policy: ec2Policy,
			wantReason:  ReasonInstanceMismatch,
			wantMessage: `node "ip-10-0-0-1.ec2.internal" is not EC2 instance i-0123456789abcdef0, whose private DNS name is "ip-10-0-0-2.ec2.internal"`,
		},
		{
			name: "providerID names another zone", node: ec2Node("aws:///us-east-1b/" + testInstanceID), answer: byID(testInstance()), policy: ec2Policy,
			wantReason: ReasonInstanceMismatch, wantMessage: `but EC2 instance i-0123456789abcdef0 is in "us-east-1a"`,
		},
		{name: "no providerID: found by private DNS name", node: ec2Node(""), answer: byName(testInstance()), policy: ec2Policy, wantReason: ReasonApproved},
		{
			name: "no providerID: a terminated instance held the name before", node: ec2Node(""), policy: ec2Policy,
			answer: byName(withState(testInstance(), "i-0aaaaaaaaaaaaaaa0", "terminated"), testInstance()), wantReason: ReasonApproved,
		},
		{
			name: "no providerID: the name is in use in two VPCs", node: ec2Node(""), policy: ec2Policy,
			answer:      byName(testInstance(), withState(testInstance(), "i-0aaaaaaaaaaaaaaa1", "running")),
			wantReason:  ReasonAmbiguousInstance,
			wantMessage: `2 running EC2 instances have private DNS name ip-10-0-0-1.ec2.internal (i-0123456789abcdef0, i-0aaaaaaaaaaaaaaa1)`,
		},
		{
			name: "no providerID: answer for another key", node: ec2Node(""), answer: byID(testInstance()), policy: ec2Policy,
			wantReason:  ReasonInventoryLookupFailed,
			wantMessage: `no EC2 inventory answer for node "ip-10-0-0-1.ec2.internal" (private DNS name ip-10-0-0-1.ec2.internal)`,
		},
		{
			name: "node named by its instance ID", node: byInstanceID, answer: byID(testInstance()), policy: ec2Policy,
			modify: func(f *fixture) {
				f.username = NodeUserPrefix + testInstanceID
				f.request.Subject.CommonName = NodeUserPrefix + testInstanceID
				f.request.DNSNames = []string{testInstanceID}
			},
			wantReason: ReasonApproved,
		},
		{
			name: "lookup throttled", node: ec2Node(testProviderID), policy: ec2Policy,
			answer:      InventoryAnswer{Key: InstanceKey{ID: testInstanceID}, Err: errors.New("RequestLimitExceeded"), Transient: true},
			wantReason:  ReasonInventoryUnreachable,
			wantMessage: `EC2 inventory lookup of instance i-0123456789abcdef0 for node "ip-10-0-0-1.ec2.internal" failed: RequestLimitExceeded`,
		},
		{
			name: "lookup denied by IAM", node: ec2Node(testProviderID), policy: ec2Policy,
			answer:      InventoryAnswer{Key: InstanceKey{ID: testInstanceID}, Err: errors.New("UnauthorizedOperation")},
			wantReason:  ReasonInventoryLookupFailed,
			wantMessage: `failed: UnauthorizedOperation`,
		},
		{
			name: "no answer at all", node: ec2Node(testProviderID), policy: ec2Policy,
			wantReason: ReasonInventoryLookupFailed,
		},
		{
			name: "bad CSR is denied for itself before the inventory", node: ec2Node(testProviderID), policy: ec2Policy,
			answer:     InventoryAnswer{Key: InstanceKey{ID: testInstanceID}, Err: errors.New("throttled"), Transient: true},
			modify:     func(f *fixture) { f.usages = append(f.usages, "client auth") },
			wantReason: ReasonUsageNotAllowed,
		},
		{
			name: "missing node is waited for before the inventory", policy: ec2Policy,
			wantReason: ReasonNodeNotFound,
		},
		{
			name: "no EC2 access: an EC2 node is denied", node: ec2Node(testProviderID), policy: Policy{Inventory: InventoryUnavailable},
			wantReason:  ReasonInventoryUnavailable,
			wantMessage: `node "ip-10-0-0-1.ec2.internal" has providerID "aws:///us-east-1a/i-0123456789abcdef0", but the approver has no EC2 access`,
		},
		{
			name: "no EC2 access: a node not on EC2 is not checked", node: ec2Node("kind://docker/kind/worker"), policy: Policy{Inventory: InventoryUnavailable},
			wantReason: ReasonApproved, wantMessage: "match the node's addresses",
		},
		{
			name: "check off: the answer is not read", node: ec2Node(testProviderID), answer: byID(), wantReason: ReasonApproved,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := validFixture()
			if tc.modify != nil {
				tc.modify(&f)
			}
			got := Decide(newCSR(t, f), tc.node, tc.answer, tc.policy)
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
		{name: "standard providerID", nodeName: testNode, providerID: testProviderID, want: InstanceKey{ID: testInstanceID}},
		{name: "short instance ID", nodeName: testNode, providerID: "aws:///us-east-1a/i-0123abcd", want: InstanceKey{ID: "i-0123abcd"}},
		{name: "local zone", nodeName: testNode, providerID: "aws:///us-west-2-lax-1a/" + testInstanceID, want: InstanceKey{ID: testInstanceID}},
		{name: "no providerID", nodeName: testNode, want: InstanceKey{PrivateDNSName: testNode}},
		{name: "resource-name hostname", nodeName: testInstanceID + ".us-east-1.compute.internal", want: InstanceKey{PrivateDNSName: testInstanceID + ".us-east-1.compute.internal"}},
		{name: "node named by instance ID", nodeName: testInstanceID, want: InstanceKey{ID: testInstanceID}},
		{name: "upper-case hex is not an instance ID", nodeName: testNode, providerID: "aws:///us-east-1a/i-0123456789ABCDEF0", wantErr: ErrNotEC2Instance},
		{name: "wrong length", nodeName: testNode, providerID: "aws:///us-east-1a/i-0123", wantErr: ErrNotEC2Instance},
		{name: "empty aws providerID", nodeName: testNode, providerID: "aws://", wantErr: ErrNotEC2Instance},
		{name: "extra path element", nodeName: testNode, providerID: "aws:///us-east-1a/" + testInstanceID + "/x", wantErr: ErrNotEC2Instance},
		{name: "zone in host and path", nodeName: testNode, providerID: "aws://us-east-1a/us-east-1a/" + testInstanceID, wantErr: ErrNotEC2Instance},
		{name: "overlong", nodeName: testNode, providerID: "aws:///" + strings.Repeat("a", 300) + "/" + testInstanceID, wantErr: ErrMalformedProviderID},
		{name: "other scheme", nodeName: testNode, providerID: "azure:///subscriptions/x", wantErr: ErrNotEC2Instance},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := newNode(tc.nodeName)
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
	for _, pid := range []string{testProviderID, "aws:////" + testInstanceID, "aws://z/" + testInstanceID, testInstanceID, "", "aws://", "aws:///a/b/c", "gce://x"} {
		f.Add(testNode, pid)
	}
	f.Fuzz(func(t *testing.T, name, providerID string) {
		n := newNode(name)
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
