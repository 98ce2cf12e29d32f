package ec2

import (
	"errors"
	"net/http"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
	"github.com/nodeboot/nodeboot/internal/aws/ec2/ec2instance"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

var testInventoryInstance = awstest.Instance{
	ID: testInstanceID, InstanceType: "m5.large", PrivateDNSName: "ip-10-0-0-1.us-west-2.compute.internal",
	AvailabilityZone: "us-west-2a",
	Interfaces: []awstest.NetworkInterface{
		{PrivateIPs: []string{"10.0.0.1", "10.0.0.11"}, IPv6s: []string{"2600:1f14::1"}},
		{PrivateIPs: []string{"10.0.1.7"}, IPv6s: []string{"2600:1f14::7"}},
		{Status: "detaching", PrivateIPs: []string{"10.0.2.9"}},
	},
	PublicIP: "54.1.2.3", PublicDNSName: "ec2-54-1-2-3.us-west-2.compute.amazonaws.com",
}

func addrs(s ...string) []netip.Addr {
	out := make([]netip.Addr, len(s))
	for i, v := range s {
		out[i] = netip.MustParseAddr(v)
	}
	return out
}

func TestInstanceByID(t *testing.T) {
	unauthorized := awstest.Fault{Status: http.StatusForbidden, Code: "UnauthorizedOperation", Message: "You are not authorized to perform this operation."}
	tests := []struct {
		name          string
		id            string
		instance      awstest.Instance
		faults        []awstest.Fault
		want          ec2instance.Instance
		wantCalls     int
		wantErr       string
		wantNotFound  bool
		wantTransient bool
	}{
		{
			name: "every in-use address, placement and state", id: testInstanceID, instance: testInventoryInstance, wantCalls: 1,
			want: ec2instance.Instance{
				ID: testInstanceID, State: "running", AvailabilityZone: "us-west-2a",
				PrivateDNSName: "ip-10-0-0-1.us-west-2.compute.internal", PublicDNSName: "ec2-54-1-2-3.us-west-2.compute.amazonaws.com",
				PrivateIP: netip.MustParseAddr("10.0.0.1"), IPv6s: addrs("2600:1f14::1"), PublicIP: netip.MustParseAddr("54.1.2.3"),
				SecondaryIPs: addrs("10.0.0.11", "10.0.1.7", "2600:1f14::7"),
			},
		},
		{
			name: "terminated instance without addresses", id: testInstanceID, wantCalls: 1,
			instance: awstest.Instance{ID: testInstanceID, State: "terminated", AvailabilityZone: "us-west-2b"},
			want:     ec2instance.Instance{ID: testInstanceID, State: "terminated", AvailabilityZone: "us-west-2b"},
		},
		{
			name: "throttled, then answered", id: testInstanceID, instance: testInventoryInstance, wantCalls: 2,
			faults: []awstest.Fault{awstest.EC2Throttling},
			want: ec2instance.Instance{
				ID: testInstanceID, State: "running", AvailabilityZone: "us-west-2a",
				PrivateDNSName: "ip-10-0-0-1.us-west-2.compute.internal", PublicDNSName: "ec2-54-1-2-3.us-west-2.compute.amazonaws.com",
				PrivateIP: netip.MustParseAddr("10.0.0.1"), IPv6s: addrs("2600:1f14::1"), PublicIP: netip.MustParseAddr("54.1.2.3"),
				SecondaryIPs: addrs("10.0.0.11", "10.0.1.7", "2600:1f14::7"),
			},
		},
		{
			name: "unknown instance", id: "i-0fffffffffffffff0", instance: testInventoryInstance, wantCalls: 1,
			wantNotFound: true, wantErr: "ec2 DescribeInstances i-0fffffffffffffff0: no such instance",
		},
		{
			name: "access denied is final", id: testInstanceID, instance: testInventoryInstance, wantCalls: 1,
			faults:  []awstest.Fault{unauthorized},
			wantErr: "UnauthorizedOperation",
		},
		{
			name: "5xx until the attempts run out is transient", id: testInstanceID, instance: testInventoryInstance, wantCalls: 3,
			faults:  []awstest.Fault{awstest.EC2InternalError, awstest.EC2InternalError, awstest.EC2InternalError},
			wantErr: "gave up after 3 attempts", wantTransient: true,
		},
		{
			name: "unparseable address", id: testInstanceID, wantCalls: 1,
			instance: awstest.Instance{ID: testInstanceID, Interfaces: []awstest.NetworkInterface{{PrivateIPs: []string{"10.0.0.300"}}}},
			wantErr:  `malformed instance in the EC2 answer: instance i-0123456789abcdef0 has address "10.0.0.300"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, stub := newTestClient(t, 3, NameWait{})
			stub.AddInstance(tc.instance)
			stub.FailNext(awstest.ActionDescribeInstances, tc.faults...)

			got, err := c.InstanceByID(t.Context(), tc.id)

			if calls := stub.Calls(awstest.ActionDescribeInstances); calls != tc.wantCalls {
				t.Errorf("DescribeInstances calls = %d, want %d", calls, tc.wantCalls)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("InstanceByID() error = %v, want it to contain %q", err, tc.wantErr)
				}
				if errors.Is(err, ErrInstanceNotFound) != tc.wantNotFound {
					t.Errorf("errors.Is(err, ErrInstanceNotFound) = %v, want %v", !tc.wantNotFound, tc.wantNotFound)
				}
				if awsconfig.Transient(err) != tc.wantTransient {
					t.Errorf("Transient(%v) = %v, want %v", err, !tc.wantTransient, tc.wantTransient)
				}
				return
			}
			if err != nil {
				t.Fatalf("InstanceByID(): %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("InstanceByID() = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestInstancesByPrivateDNSName(t *testing.T) {
	const name = "ip-10-0-0-1.us-west-2.compute.internal"
	c, stub := newTestClient(t, 3, NameWait{})
	stub.AddInstance(testInventoryInstance)
	// The same address, so the same name, in another VPC, and a terminated
	// instance that held it before.
	stub.AddInstance(awstest.Instance{ID: "i-0aaaaaaaaaaaaaaa1", PrivateDNSName: name, AvailabilityZone: "us-west-2c",
		Interfaces: []awstest.NetworkInterface{{PrivateIPs: []string{"10.0.0.1"}}}})
	stub.AddInstance(awstest.Instance{ID: "i-0aaaaaaaaaaaaaaa0", PrivateDNSName: name, State: "terminated"})
	stub.AddInstance(awstest.Instance{ID: "i-0bbbbbbbbbbbbbbb0", PrivateDNSName: "ip-10-0-0-2.us-west-2.compute.internal"})

	got, err := c.InstancesByPrivateDNSName(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, in := range got {
		ids = append(ids, in.ID+"/"+in.State)
	}
	want := []string{"i-0123456789abcdef0/running", "i-0aaaaaaaaaaaaaaa0/terminated", "i-0aaaaaaaaaaaaaaa1/running"}
	if !reflect.DeepEqual(ids, want) {
		t.Fatalf("InstancesByPrivateDNSName() = %v, want %v", ids, want)
	}
	req := stub.Requests()[0]
	if req.Get("Filter.1.Name") != "private-dns-name" || req.Get("Filter.1.Value.1") != name || req.Get("MaxResults") != "100" {
		t.Errorf("request = %v, want a private-dns-name filter with MaxResults 100", req)
	}

	none, err := c.InstancesByPrivateDNSName(t.Context(), "ip-10-9-9-9.us-west-2.compute.internal")
	if err != nil || len(none) != 0 {
		t.Fatalf("InstancesByPrivateDNSName(unknown) = %v, %v; want none and no error", none, err)
	}
}

func TestInstancesByFilter(t *testing.T) {
	c, stub := newTestClient(t, 3, NameWait{})
	stub.AddInstance(awstest.Instance{ID: "i-0aaaaaaaaaaaaaaa1", PrivateDNSName: "ip-10-0-0-1.us-west-2.compute.internal",
		VPCID: "vpc-0123456789abcdef0", OwnerID: "111122223333"})
	stub.AddInstance(awstest.Instance{ID: "i-0aaaaaaaaaaaaaaa2", PrivateDNSName: "ip-10-0-0-2.us-west-2.compute.internal"})
	stub.AddInstance(awstest.Instance{ID: "i-0aaaaaaaaaaaaaaa3", PrivateDNSName: "ip-10-0-0-3.us-west-2.compute.internal"})

	// An unknown ID is no answer, not an error failing the others.
	got, err := c.InstancesByFilter(t.Context(), "instance-id", []string{"i-0aaaaaaaaaaaaaaa1", "i-0fffffffffffffff9", "i-0aaaaaaaaaaaaaaa3"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, in := range got {
		ids = append(ids, in.ID)
	}
	if want := []string{"i-0aaaaaaaaaaaaaaa1", "i-0aaaaaaaaaaaaaaa3"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("InstancesByFilter() = %v, want %v", ids, want)
	}
	if got[0].VPCID != "vpc-0123456789abcdef0" || got[0].OwnerID != "111122223333" {
		t.Errorf("instance %s in VPC %q of %q, want vpc-0123456789abcdef0 of 111122223333", got[0].ID, got[0].VPCID, got[0].OwnerID)
	}
	req := stub.Requests()[0]
	if req.Get("Filter.1.Name") != "instance-id" || req.Get("Filter.1.Value.3") != "i-0aaaaaaaaaaaaaaa3" || req.Get("InstanceId.1") != "" {
		t.Errorf("request = %v, want an instance-id filter of 3 values and no InstanceId", req)
	}

	byName, err := c.InstancesByFilter(t.Context(), "private-dns-name", []string{"ip-10-0-0-2.us-west-2.compute.internal"})
	if err != nil || len(byName) != 1 || byName[0].ID != "i-0aaaaaaaaaaaaaaa2" {
		t.Fatalf("InstancesByFilter(private-dns-name) = %v, %v; want i-0aaaaaaaaaaaaaaa2", byName, err)
	}
	if _, err := c.InstancesByFilter(t.Context(), "instance-id", make([]string, MaxFilterValues+1)); err == nil {
		t.Fatalf("InstancesByFilter() with %d values: no error", MaxFilterValues+1)
	}
}
