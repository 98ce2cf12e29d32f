package doctor

import (
	"context"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
	"github.com/nodeboot/nodeboot/internal/aws/ec2"
	"github.com/nodeboot/nodeboot/internal/aws/eks"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// sdkAWS is the doctor's AWS through the real SDK clients.
type sdkAWS struct {
	ec2 *ec2.Client
	eks *eks.Client
}

func (a sdkAWS) DescribeCluster(ctx context.Context, name string) (eks.ClusterInfo, error) {
	return a.eks.DescribeCluster(ctx, name)
}
func (a sdkAWS) InstanceSecurityGroups(ctx context.Context, id string) ([]ec2.SecurityGroup, error) {
	return a.ec2.InstanceSecurityGroups(ctx, id)
}
func (a sdkAWS) InstanceTypeLimits(ctx context.Context, t string) (ec2.Limits, error) {
	return a.ec2.InstanceTypeLimits(ctx, t)
}

// TestSecurityGroupsThroughTheAPIs asks the EC2 and EKS stubs, through the
// SDK, for the instance's groups and the cluster's, as a node does with
// its role: a node group whose security group opens only 443 to the
// cluster fails the kubelet port check, naming both groups and the fix.
func TestSecurityGroupsThroughTheAPIs(t *testing.T) {
	awstest.IsolateEnv(t)
	ec2Stub, eksStub := awstest.NewEC2(t), awstest.NewEKS(t)
	t.Setenv("AWS_ENDPOINT_URL_EC2", ec2Stub.URL)
	t.Setenv("AWS_ENDPOINT_URL_EKS", eksStub.URL)
	ec2Stub.AddInstance(awstest.Instance{ID: "i-1", InstanceType: "g4dn.xlarge", SecurityGroups: []string{"sg-nodes"}})
	ec2Stub.AddInstanceType(awstest.InstanceType{Name: "g4dn.xlarge", Hypervisor: "nitro", VCPUs: 4, MaxENIs: 3, IPv4PerENI: 10, NVIDIAGPUs: 1})
	ec2Stub.AddSecurityGroup(awstest.SecurityGroup{ID: "sg-nodes", Name: "self-managed-nodes",
		Ingress: []awstest.Permission{{Protocol: "tcp", FromPort: 443, ToPort: 443, Groups: []string{"sg-cluster"}}},
		Egress:  []awstest.Permission{{Protocol: "-1", CIDRs: []string{"0.0.0.0/0"}}}})
	eksStub.AddCluster(awstest.Cluster{Name: "prod", Endpoint: "https://prod.example.com", CA: []byte("ca"), ClusterSecurityGroupID: "sg-cluster"})
	d := Doctor{AWS: func(ctx context.Context, region string) (AWS, error) {
		cfg, err := awsconfig.LoadNode(ctx, awsconfig.Options{Region: region})
		return sdkAWS{ec2: ec2.New(cfg, ec2.NameWait{}), eks: eks.New(cfg)}, err
	}}
	cloud := d.gatherCloud(context.Background(), InstanceIdentity{InstanceID: "i-1", Region: "us-west-2", InstanceType: "g4dn.xlarge"}, "prod", nil)
	if cloud.Err != nil || cloud.InfoErr != nil || cloud.GroupsErr != nil || cloud.TypeErr != nil || cloud.Type.NVIDIAGPUs != 1 {
		t.Fatalf("cloud evidence %+v", cloud)
	}
	r := kubeletPortVerdict(KubeletPortEvidence{Port: 10250, Dialed: "10.0.0.5:10250", Cloud: cloud})
	if r.Verdict != Fail || !strings.Contains(r.Summary, "sg-nodes") || !strings.Contains(r.Summary, "sg-cluster") ||
		r.Action != "aws ec2 authorize-security-group-ingress --group-id sg-nodes --protocol tcp --port 10250 --source-group sg-cluster" {
		t.Errorf("verdict %+v", r)
	}
	if n := ec2Stub.Calls(awstest.ActionDescribeSecurityGroups); n != 1 {
		t.Errorf("DescribeSecurityGroups calls %d", n)
	}
}
