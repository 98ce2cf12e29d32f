package awstest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	smithy "github.com/aws/smithy-go"
)

// credsProvider gives fixed keys (the stubs only check that requests are signed).
type credsProvider struct{}

func (credsProvider) Retrieve(context.Context) (aws.Credentials, error) {
	return aws.Credentials{AccessKeyID: "AKID", SecretAccessKey: "secret"}, nil
}

func errorCode(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}

// TestEKSAccessEntriesWire drives the access-entry operations with the real
// SDK client.
func TestEKSAccessEntriesWire(t *testing.T) {
	s := NewEKS(t)
	s.AddCluster(Cluster{Name: "prod", AuthenticationMode: AuthModeConfigMap})
	c := eks.New(eks.Options{Region: "us-west-2", BaseEndpoint: aws.String(s.URL), Credentials: credsProvider{}})
	ctx := t.Context()
	role := "arn:aws:iam::111122223333:role/nodes"
	_, err := c.CreateAccessEntry(ctx, &eks.CreateAccessEntryInput{ClusterName: aws.String("prod"), PrincipalArn: aws.String(role), Type: aws.String("EC2_LINUX")})
	if errorCode(err) != "InvalidRequestException" {
		t.Fatalf("CreateAccessEntry in CONFIG_MAP mode: %v, want InvalidRequestException", err)
	}
	if _, err := c.UpdateClusterConfig(ctx, &eks.UpdateClusterConfigInput{Name: aws.String("prod"),
		AccessConfig: &ekstypes.UpdateAccessConfigRequest{AuthenticationMode: ekstypes.AuthenticationModeApiAndConfigMap}}); err != nil {
		t.Fatal(err)
	}
	out, err := c.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String("prod")})
	if err != nil || out.Cluster.AccessConfig == nil || out.Cluster.AccessConfig.AuthenticationMode != ekstypes.AuthenticationModeApiAndConfigMap {
		t.Fatalf("DescribeCluster after the update: %+v, %v", out, err)
	}
	if _, err := c.UpdateClusterConfig(ctx, &eks.UpdateClusterConfigInput{Name: aws.String("prod"),
		AccessConfig: &ekstypes.UpdateAccessConfigRequest{AuthenticationMode: ekstypes.AuthenticationModeConfigMap}}); errorCode(err) != "InvalidParameterException" {
		t.Errorf("going back to CONFIG_MAP: %v, want InvalidParameterException", err)
	}
	if _, err := c.CreateAccessEntry(ctx, &eks.CreateAccessEntryInput{ClusterName: aws.String("prod"), PrincipalArn: aws.String(role),
		Type: aws.String("EC2_LINUX"), KubernetesGroups: []string{"system:nodes"}}); errorCode(err) != "InvalidParameterException" {
		t.Errorf("EC2_LINUX with groups: %v, want InvalidParameterException", err)
	}
	if _, err := c.CreateAccessEntry(ctx, &eks.CreateAccessEntryInput{ClusterName: aws.String("prod"), PrincipalArn: aws.String(role), Type: aws.String("EC2_LINUX")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateAccessEntry(ctx, &eks.CreateAccessEntryInput{ClusterName: aws.String("prod"), PrincipalArn: aws.String(role)}); errorCode(err) != "ResourceInUseException" {
		t.Errorf("second entry for a principal: %v, want ResourceInUseException", err)
	}
	list, err := c.ListAccessEntries(ctx, &eks.ListAccessEntriesInput{ClusterName: aws.String("prod")})
	if err != nil || !slices.Equal(list.AccessEntries, []string{role}) {
		t.Fatalf("ListAccessEntries = %+v, %v", list, err)
	}
	got, err := c.DescribeAccessEntry(ctx, &eks.DescribeAccessEntryInput{ClusterName: aws.String("prod"), PrincipalArn: aws.String(role)})
	if err != nil || aws.ToString(got.AccessEntry.Type) != "EC2_LINUX" || aws.ToString(got.AccessEntry.Username) != "system:node:{{EC2PrivateDNSName}}" {
		t.Fatalf("DescribeAccessEntry = %+v, %v", got, err)
	}
	if _, err := c.DeleteAccessEntry(ctx, &eks.DeleteAccessEntryInput{ClusterName: aws.String("prod"), PrincipalArn: aws.String(role)}); err != nil {
		t.Fatal(err)
	}
	if len(s.AccessEntries("prod")) != 0 {
		t.Error("entry not deleted")
	}
}

// TestRoleResolutionWire resolves a launch template's instance profile to
// its role with the real EC2 and IAM clients.
func TestRoleResolutionWire(t *testing.T) {
	e := NewEC2(t)
	e.AddLaunchTemplate(LaunchTemplate{ID: "lt-0abc", Name: "workers", InstanceType: "m5.large",
		IAMInstanceProfileARN: "arn:aws:iam::111122223333:instance-profile/eks/workers", UserData: "I2Nsb3VkLWNvbmZpZw=="})
	i := NewIAM(t)
	i.AddInstanceProfile(InstanceProfile{Name: "workers", Path: "/eks/", Account: "111122223333", RoleARNs: []string{"arn:aws:iam::111122223333:role/eks/nodes"}})
	ctx := t.Context()
	ec2c := ec2.New(ec2.Options{Region: "us-west-2", BaseEndpoint: aws.String(e.URL), Credentials: credsProvider{}})
	v, err := ec2c.DescribeLaunchTemplateVersions(ctx, &ec2.DescribeLaunchTemplateVersionsInput{LaunchTemplateId: aws.String("lt-0abc"), Versions: []string{"$Default"}})
	if err != nil || len(v.LaunchTemplateVersions) != 1 {
		t.Fatalf("DescribeLaunchTemplateVersions = %+v, %v", v, err)
	}
	data := v.LaunchTemplateVersions[0].LaunchTemplateData
	if data.IamInstanceProfile == nil || aws.ToString(data.IamInstanceProfile.Arn) != "arn:aws:iam::111122223333:instance-profile/eks/workers" ||
		aws.ToString(data.UserData) != "I2Nsb3VkLWNvbmZpZw==" {
		t.Fatalf("launch template data %+v", data)
	}
	iamc := iam.New(iam.Options{Region: "us-west-2", BaseEndpoint: aws.String(i.URL), Credentials: credsProvider{}})
	p, err := iamc.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String("workers")})
	if err != nil || len(p.InstanceProfile.Roles) != 1 || aws.ToString(p.InstanceProfile.Roles[0].Arn) != "arn:aws:iam::111122223333:role/eks/nodes" ||
		aws.ToString(p.InstanceProfile.Roles[0].RoleName) != "nodes" || aws.ToString(p.InstanceProfile.Roles[0].Path) != "/eks/" {
		t.Fatalf("GetInstanceProfile = %+v, %v", p, err)
	}
	if _, err := iamc.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String("nope")}); errorCode(err) != "NoSuchEntity" {
		t.Errorf("unknown profile: %v, want NoSuchEntity", err)
	}
}
