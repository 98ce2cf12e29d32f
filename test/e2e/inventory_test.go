//go:build e2e

package e2e

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"

	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// cloudInventory is the EC2 API nodeboot-approver asks about the instance
// behind each Node: the region's view, with the instance of every
// scenario. Each instance has the host's IP as its primary private IP and
// one secondary private IP, which the kubelet does not report.
type cloudInventory struct {
	ec2 *awstest.EC2
	// eks answers the approver's DescribeCluster: the cluster's VPC and
	// account, where every scenario's instance runs.
	eks *awstest.EKS
	// neighbour is another instance's IP in the node's subnet (inside the
	// approver's allowed CIDRs); secondary is the instance's own secondary
	// private IP.
	neighbour, secondary net.IP
}

// startInventory serves the EC2 API with every scenario's instance until
// the test ends.
func startInventory(t *testing.T, host hostInfo, nodeName string) *cloudInventory {
	t.Helper()
	near := nearbyIPs(host.ip, host.network, 2)
	if len(near) < 2 {
		t.Fatalf("host subnet %s has no two other addresses for a neighbour and a secondary IP", host.network)
	}
	inv := &cloudInventory{ec2: awstest.NewEC2(t), eks: awstest.NewEKS(t), neighbour: near[0], secondary: near[1]}
	inv.eks.AddCluster(awstest.Cluster{Name: clusterName, VPCID: clusterVPC})
	for _, sc := range joinScenarios {
		inv.ec2.AddInstance(awstest.Instance{
			ID: sc.instanceID, InstanceType: sc.instanceType, PrivateDNSName: nodeName, AvailabilityZone: zone,
			VPCID: clusterVPC, OwnerID: awstest.DefaultAccountID,
			Interfaces: []awstest.NetworkInterface{{PrivateIPs: []string{host.ip.String(), inv.secondary.String()}}},
		})
	}
	return inv
}

// clusterVPC is the VPC of the e2e cluster's instances.
const clusterVPC = "vpc-0e2e0000000000e2e"

// approverClusterFlag names the cluster to nodeboot-approver, which asks
// EKS for its VPC and account.
const approverClusterFlag = "--cluster-name=" + clusterName

// approverEnv points the approver's AWS SDK at the stubs: the region (with
// approverClusterFlag) turns the inventory check on (--ec2-inventory=auto),
// static keys keep the SDK from looking for credentials, and the metadata
// service is off.
func (inv *cloudInventory) approverEnv() []string {
	return []string{
		"AWS_REGION=" + region,
		"AWS_ENDPOINT_URL=" + inv.ec2.URL,
		"AWS_ENDPOINT_URL_EKS=" + inv.eks.URL,
		"AWS_ACCESS_KEY_ID=AKIDNODEBOOTE2E", "AWS_SECRET_ACCESS_KEY=nodeboot-e2e",
		"AWS_EC2_METADATA_DISABLED=true",
	}
}

// describedIDs returns the instance IDs the approver asked EC2 about (with
// an instance-id filter).
func (inv *cloudInventory) describedIDs() []string {
	var ids []string
	for _, form := range inv.ec2.Requests() {
		if form.Get("Action") != awstest.ActionDescribeInstances || form.Get("Filter.1.Name") != "instance-id" {
			continue
		}
		for i := 1; form.Get(fmt.Sprintf("Filter.1.Value.%d", i)) != ""; i++ {
			ids = append(ids, form.Get(fmt.Sprintf("Filter.1.Value.%d", i)))
		}
	}
	return ids
}

// assertApprovedAgainstInventory checks that the approver consulted EC2
// for the node's instance before approving its serving certificate.
func assertApprovedAgainstInventory(t *testing.T, csr *certificatesv1.CertificateSigningRequest, inv *cloudInventory, instanceID string) {
	t.Helper()
	for _, cond := range csr.Status.Conditions {
		if cond.Type == certificatesv1.CertificateApproved && !strings.Contains(cond.Message, "EC2 instance "+instanceID) {
			t.Errorf("serving CSR approved with %q, which does not name EC2 instance %s", cond.Message, instanceID)
		}
	}
	if ids := inv.describedIDs(); !slices.Contains(ids, instanceID) {
		t.Errorf("the approver described instances %q, not %s", ids, instanceID)
	}
}

// nearbyIPs returns up to n addresses of network other than ip, the
// closest above it first, then below it.
func nearbyIPs(ip net.IP, network *net.IPNet, n int) []net.IP {
	var out []net.IP
	for _, delta := range []int{1, 2, 3, -1, -2, -3} {
		c := append(net.IP(nil), ip.To4()...)
		v := int(c[3]) + delta
		if v < 1 || v > 254 {
			continue
		}
		c[3] = byte(v)
		if network.Contains(c) && len(out) < n {
			out = append(out, c)
		}
	}
	return out
}
