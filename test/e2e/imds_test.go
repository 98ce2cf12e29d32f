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
	ec2.AddInstance(awstest.Instance{ID: m.instanceID, InstanceType: m.instanceType, PrivateDNSName: m.dnsName})
	return imdsURL, ec2
}
