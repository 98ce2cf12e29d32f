package eks

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

var testCA = []byte("-----BEGIN CERTIFICATE-----\nMIIBdGVzdA==\n-----END CERTIFICATE-----\n")

var prodCluster = awstest.Cluster{
	Name: "prod", Endpoint: "https://ABCDEF.gr7.us-west-2.eks.amazonaws.com", CA: testCA,
	ServiceIPv4CIDR: "172.20.0.0/16", IPFamily: "ipv4", Version: "1.34",
}

// newTestClient isolates the environment, starts an EKS stub reached via
// AWS_ENDPOINT_URL_EKS and returns a client with millisecond backoffs.
func newTestClient(t *testing.T, attempts int) (*Client, *awstest.EKS) {
	t.Helper()
	return newBoundedClient(t, attempts, 0)
}

// newBoundedClient is newTestClient with each attempt bounded by
// requestTimeout (0: awsconfig's default).
func newBoundedClient(t *testing.T, attempts int, requestTimeout time.Duration) (*Client, *awstest.EKS) {
	t.Helper()
	awstest.IsolateEnv(t)
	stub := awstest.NewEKS(t)
	t.Setenv("AWS_ENDPOINT_URL_EKS", stub.URL)
	cfg, err := awsconfig.LoadNode(t.Context(), awsconfig.Options{
		Region: "us-west-2", MaxAttempts: attempts, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond,
		RequestTimeout: requestTimeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	return New(cfg), stub
}

func TestDescribeCluster(t *testing.T) {
	tests := []struct {
		name      string
		cluster   awstest.Cluster
		ask       string
		faults    []awstest.Fault
		want      ClusterInfo
		wantCalls int
		wantIs    error
		wantErr   string
	}{
		{
			name:    "ipv4 cluster",
			cluster: prodCluster,
			ask:     "prod",
			want: ClusterInfo{Name: "prod", Endpoint: prodCluster.Endpoint, CA: testCA, ServiceIPv4CIDR: "172.20.0.0/16",
				IPFamily: "ipv4", Status: "ACTIVE", Version: "1.34"},
			wantCalls: 1,
		},
		{
			name: "security groups",
			cluster: awstest.Cluster{Name: "sg", Endpoint: "https://10.0.0.1", CA: testCA, ServiceIPv4CIDR: "172.20.0.0/16",
				ClusterSecurityGroupID: "sg-cluster", SecurityGroupIDs: []string{"sg-extra"}},
			ask: "sg",
			want: ClusterInfo{Name: "sg", Endpoint: "https://10.0.0.1", CA: testCA, ServiceIPv4CIDR: "172.20.0.0/16", Status: "ACTIVE",
				ClusterSecurityGroupID: "sg-cluster", SecurityGroupIDs: []string{"sg-extra"}},
			wantCalls: 1,
		},
		{
			name: "ipv6 outpost cluster",
			cluster: awstest.Cluster{Name: "edge", Endpoint: "https://10.0.0.1", CA: testCA, ServiceIPv4CIDR: "10.100.0.0/16",
				ServiceIPv6CIDR: "fd30:1c53:5f8a::/108", IPFamily: "ipv6", ID: "0123abcd-4567",
				OutpostARN: "arn:aws:outposts:us-west-2:111122223333:outpost/op-0123", Status: "UPDATING"},
			ask: "edge",
			want: ClusterInfo{Name: "edge", Endpoint: "https://10.0.0.1", CA: testCA, ServiceIPv4CIDR: "10.100.0.0/16",
				ServiceIPv6CIDR: "fd30:1c53:5f8a::/108", IPFamily: "ipv6", ID: "0123abcd-4567",
				OutpostARN: "arn:aws:outposts:us-west-2:111122223333:outpost/op-0123", Status: "UPDATING"},
			wantCalls: 1,
		},
		{
			name:      "throttled twice then success",
			cluster:   prodCluster,
			ask:       "prod",
			faults:    []awstest.Fault{awstest.EKSThrottling, awstest.EKSThrottling},
			want:      ClusterInfo{Name: "prod", Endpoint: prodCluster.Endpoint, CA: testCA, ServiceIPv4CIDR: "172.20.0.0/16", IPFamily: "ipv4", Status: "ACTIVE", Version: "1.34"},
			wantCalls: 3,
		},
		{
			name:      "5xx then success",
			cluster:   prodCluster,
			ask:       "prod",
			faults:    []awstest.Fault{awstest.EKSServerError, {Status: 503, Code: "ServiceUnavailableException", Message: "later"}},
			want:      ClusterInfo{Name: "prod", Endpoint: prodCluster.Endpoint, CA: testCA, ServiceIPv4CIDR: "172.20.0.0/16", IPFamily: "ipv4", Status: "ACTIVE", Version: "1.34"},
			wantCalls: 3,
		},
		{
			name:      "bare 429 then success",
			cluster:   prodCluster,
			ask:       "prod",
			faults:    []awstest.Fault{awstest.TooManyRequests},
			want:      ClusterInfo{Name: "prod", Endpoint: prodCluster.Endpoint, CA: testCA, ServiceIPv4CIDR: "172.20.0.0/16", IPFamily: "ipv4", Status: "ACTIVE", Version: "1.34"},
			wantCalls: 2,
		},
		{
			name:      "throttling exhausts the attempt budget",
			cluster:   prodCluster,
			ask:       "prod",
			faults:    []awstest.Fault{awstest.EKSThrottling, awstest.EKSThrottling, awstest.EKSThrottling, awstest.EKSThrottling},
			wantCalls: 3,
			wantErr:   `eks DescribeCluster "prod": gave up after 3 attempts`,
		},
		{
			name:      "unknown cluster is not retried",
			cluster:   prodCluster,
			ask:       "staging",
			wantCalls: 1,
			wantIs:    ErrClusterNotFound,
		},
		{
			name:      "creating cluster has no endpoint yet",
			cluster:   awstest.Cluster{Name: "new", Status: "CREATING"},
			ask:       "new",
			want:      ClusterInfo{Name: "new", Status: "CREATING"},
			wantCalls: 1,
			wantIs:    ErrClusterNotReady,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, stub := newTestClient(t, 3)
			stub.AddCluster(tc.cluster)
			stub.FailNext(awstest.ActionDescribeCluster, tc.faults...)
			got, err := c.DescribeCluster(t.Context(), tc.ask)
			switch {
			case tc.wantIs != nil:
				if !errors.Is(err, tc.wantIs) {
					t.Fatalf("error = %v, want %v", err, tc.wantIs)
				}
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tc.wantErr)
				}
			case err != nil:
				t.Fatalf("DescribeCluster: %v", err)
			}
			if !equalInfo(got, tc.want) {
				t.Errorf("info = %+v\nwant   %+v", got, tc.want)
			}
			if n := stub.Calls(awstest.ActionDescribeCluster); n != tc.wantCalls {
				t.Errorf("calls = %d, want %d", n, tc.wantCalls)
			}
		})
	}
}

func equalInfo(a, b ClusterInfo) bool {
	return reflect.DeepEqual(withoutCA(a), withoutCA(b)) && bytes.Equal(a.CA, b.CA)
}

func withoutCA(i ClusterInfo) ClusterInfo {
	i.CA = nil
	return i
}

func TestServiceCIDR(t *testing.T) {
	tests := []struct {
		name string
		info ClusterInfo
		want string
	}{
		{name: "ipv4", info: ClusterInfo{IPFamily: "ipv4", ServiceIPv4CIDR: "10.100.0.0/16", ServiceIPv6CIDR: "fd00::/108"}, want: "10.100.0.0/16"},
		{name: "family unset", info: ClusterInfo{ServiceIPv4CIDR: "172.20.0.0/16"}, want: "172.20.0.0/16"},
		{name: "ipv6", info: ClusterInfo{IPFamily: "ipv6", ServiceIPv4CIDR: "10.100.0.0/16", ServiceIPv6CIDR: "fd00::/108"}, want: "fd00::/108"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.info.ServiceCIDR(); got != tc.want {
				t.Errorf("ServiceCIDR = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestClusterHome(t *testing.T) {
	c, stub := newTestClient(t, 1)
	stub.AddCluster(awstest.Cluster{Name: "prod", VPCID: "vpc-0123456789abcdef0", AccountID: "444455556666"})
	stub.AddCluster(awstest.Cluster{Name: "novpc"})

	home, err := c.ClusterHome(t.Context(), "prod")
	if err != nil || home != (ClusterHome{VPCID: "vpc-0123456789abcdef0", AccountID: "444455556666"}) {
		t.Fatalf("ClusterHome(prod) = %+v, %v", home, err)
	}
	if _, err := c.ClusterHome(t.Context(), "novpc"); err == nil || !strings.Contains(err.Error(), "names no VPC") {
		t.Fatalf("ClusterHome(novpc) error = %v, want it to say the VPC is missing", err)
	}
	if _, err := c.ClusterHome(t.Context(), "gone"); !errors.Is(err, ErrClusterNotFound) {
		t.Fatalf("ClusterHome(gone) error = %v, want ErrClusterNotFound", err)
	}
}
