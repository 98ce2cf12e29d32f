//go:build e2e

package e2e

import (
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/aemmtest"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// instanceMeta is the fake EC2 instance this machine plays.
type instanceMeta struct {
	instanceID   string
	instanceType string
	region       string
	az           string
	host         hostInfo
	dnsName      string
	userData     []byte
	// iam is the instance role IMDS serves (its credentials sign the
	// kubelet's token).
	iam *aemmtest.IAMRole
}

// startMetadata serves the instance's IMDS with the real
// amazon-ec2-metadata-mock (IMDSv2 only) and its EC2 API
// (DescribeInstances answers the private DNS name) and returns their
// endpoints. Both stop when the test ends.
func startMetadata(t *testing.T, m instanceMeta) (imdsURL string, ec2 *awstest.EC2) {
	t.Helper()
	imdsURL = aemmtest.Start(t, aemmtest.Config{
		UserData:     m.userData,
		InstanceID:   m.instanceID,
		InstanceType: m.instanceType,
		Region:       m.region,
		AZ:           m.az,
		LocalIPv4:    m.host.ip.String(),
		MAC:          m.host.mac,
		Hostname:     m.dnsName,
		VPCCIDRs:     []string{m.host.network.String()},
		IAM:          m.iam,
	})
	ec2 = awstest.NewEC2(t)
	ec2.AddInstance(awstest.Instance{ID: m.instanceID, InstanceType: m.instanceType, PrivateDNSName: m.dnsName, SecurityGroups: []string{e2eNodeSG}})
	ec2.AddSecurityGroup(nodeSecurityGroup(true))
	return imdsURL, ec2
}

// The security groups of the e2e's instances and cluster.
const (
	e2eNodeSG    = "sg-0e2e0000000000nodes"
	e2eClusterSG = "sg-0e2e000000000cluster"
)

// nodeSecurityGroup is the instance's group as a self-managed node group's
// template makes it: the cluster group in on the kubelet's port (unless
// kubeletOpen is false, the mistake the doctor must catch), all out.
func nodeSecurityGroup(kubeletOpen bool) awstest.SecurityGroup {
	g := awstest.SecurityGroup{ID: e2eNodeSG, Name: "nodeboot-e2e-nodes",
		Ingress: []awstest.Permission{{Protocol: "tcp", FromPort: 443, ToPort: 443, Groups: []string{e2eClusterSG}}},
		Egress:  []awstest.Permission{{Protocol: "-1", CIDRs: []string{"0.0.0.0/0"}}}}
	if kubeletOpen {
		g.Ingress = append(g.Ingress, awstest.Permission{Protocol: "tcp", FromPort: 10250, ToPort: 10250, Groups: []string{e2eClusterSG}})
	}
	return g
}
