package ec2

import (
	"net/netip"
	"reflect"
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// TestInstanceAddressesByInterface checks which of an instance's addresses
// are its own (the primary interface's) and which are secondary, for the
// shapes EKS nodes have, with the stub answering as EC2 does.
func TestInstanceAddressesByInterface(t *testing.T) {
	slot := func(device, card int) *awstest.Slot { return &awstest.Slot{Device: device, Card: card} }
	tests := []struct {
		name          string
		interfaces    []awstest.NetworkInterface
		publicIP      string
		wantPrivate   string
		wantIPv6s     []netip.Addr
		wantSecondary []netip.Addr
	}{
		{
			name: "VPC CNI: secondary IPs on the primary interface and a second interface",
			interfaces: []awstest.NetworkInterface{
				{PrivateIPs: []string{"10.0.0.1", "10.0.0.11", "10.0.0.12"}},
				{PrivateIPs: []string{"10.0.0.21", "10.0.0.22"}},
			},
			wantPrivate: "10.0.0.1", wantSecondary: addrs("10.0.0.11", "10.0.0.12", "10.0.0.21", "10.0.0.22"),
		},
		{
			name: "primary interface listed after the CNI's",
			interfaces: []awstest.NetworkInterface{
				{Slot: slot(2, 0), PrivateIPs: []string{"100.64.1.7"}},
				{Slot: slot(1, 0), PrivateIPs: []string{"100.64.0.9", "100.64.0.10"}},
				{Slot: slot(0, 0), PrivateIPs: []string{"10.0.0.1"}, IPv6s: []string{"2600:1f14::1"}},
			},
			wantPrivate: "10.0.0.1", wantIPv6s: addrs("2600:1f14::1"), wantSecondary: addrs("100.64.1.7", "100.64.0.9", "100.64.0.10"),
		},
		{
			name: "several network cards: device 0 of card 1 is not the primary interface",
			interfaces: []awstest.NetworkInterface{
				{Slot: slot(0, 1), PrivateIPs: []string{"10.0.8.1"}, IPv6s: []string{"2600:1f14::81"}},
				{Slot: slot(0, 0), PrivateIPs: []string{"10.0.0.1"}, IPv6s: []string{"2600:1f14::1", "2600:1f14::2"}},
			},
			wantPrivate: "10.0.0.1", wantIPv6s: addrs("2600:1f14::1", "2600:1f14::2"), wantSecondary: addrs("10.0.8.1", "2600:1f14::81"),
		},
		{
			name: "IPv6-only subnet: no private IPv4",
			interfaces: []awstest.NetworkInterface{
				{IPv6s: []string{"2600:1f14::1"}, IPv6Prefixes: []string{"2600:1f14:0:0:1::/80"}},
			},
			wantIPv6s: addrs("2600:1f14::1"),
		},
		{
			name: "prefix delegation: pod prefixes are no address",
			interfaces: []awstest.NetworkInterface{
				{PrivateIPs: []string{"10.0.0.1"}, IPv4Prefixes: []string{"10.0.4.16/28"}},
			},
			wantPrivate: "10.0.0.1",
		},
		{
			name: "Elastic IP on a secondary address, public IP on the primary one",
			interfaces: []awstest.NetworkInterface{
				{PrivateIPs: []string{"10.0.0.1", "10.0.0.11"}, PublicIPs: map[string]string{"10.0.0.11": "52.9.9.9"}},
			},
			publicIP:    "54.1.2.3",
			wantPrivate: "10.0.0.1", wantSecondary: addrs("10.0.0.11", "52.9.9.9"),
		},
		{
			name: "detached interface: none of its addresses",
			interfaces: []awstest.NetworkInterface{
				{PrivateIPs: []string{"10.0.0.1"}},
				{Status: "detaching", PrivateIPs: []string{"10.0.0.31"}},
			},
			wantPrivate: "10.0.0.1",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, stub := newTestClient(t, 1, NameWait{})
			stub.AddInstance(awstest.Instance{ID: testInstanceID, PrivateDNSName: "ip-10-0-0-1.us-west-2.compute.internal",
				Interfaces: tc.interfaces, PublicIP: tc.publicIP})

			got, err := c.InstanceByID(t.Context(), testInstanceID)
			if err != nil {
				t.Fatal(err)
			}
			var wantPrivate netip.Addr
			if tc.wantPrivate != "" {
				wantPrivate = netip.MustParseAddr(tc.wantPrivate)
			}
			if got.PrivateIP != wantPrivate || !reflect.DeepEqual(got.IPv6s, tc.wantIPv6s) || !reflect.DeepEqual(got.SecondaryIPs, tc.wantSecondary) {
				t.Fatalf("InstanceByID() private %v, IPv6 %v, secondary %v; want %v, %v, %v",
					got.PrivateIP, got.IPv6s, got.SecondaryIPs, wantPrivate, tc.wantIPv6s, tc.wantSecondary)
			}
			if tc.publicIP != "" && got.PublicIP.String() != tc.publicIP {
				t.Errorf("PublicIP = %v, want %s", got.PublicIP, tc.publicIP)
			}
		})
	}
}
