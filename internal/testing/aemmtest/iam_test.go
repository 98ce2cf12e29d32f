package aemmtest

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials/ec2rolecreds"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
)

// TestIAMRole checks, with the SDK's own instance-role provider, that AEMM
// serves the configured role credentials and instance profile.
func TestIAMRole(t *testing.T) {
	role := IAMRole{
		InstanceProfileARN: "arn:aws:iam::111122223333:instance-profile/eks/workers", InstanceProfileID: "AIPAEXAMPLE",
		RoleName: "workers-node-role", AccessKeyID: "ASIAEXAMPLE", SecretAccessKey: "secret", Token: "token",
		Expiration: time.Now().Add(6 * time.Hour).Truncate(time.Second),
	}
	client := imds.New(imds.Options{Endpoint: Start(t, Config{IAM: &role})})
	creds, err := ec2rolecreds.New(func(o *ec2rolecreds.Options) { o.Client = client }).Retrieve(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if creds.AccessKeyID != role.AccessKeyID || creds.SecretAccessKey != role.SecretAccessKey || creds.SessionToken != role.Token ||
		!creds.Expires.After(time.Now()) { // the SDK may refresh earlier than the expiration
		t.Errorf("credentials %+v, want those of %+v", creds, role)
	}
	info, err := client.GetIAMInfo(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if info.InstanceProfileArn != role.InstanceProfileARN || info.InstanceProfileID != role.InstanceProfileID {
		t.Errorf("iam/info %+v", info.IAMInfo)
	}
}
