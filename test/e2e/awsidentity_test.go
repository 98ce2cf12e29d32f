//go:build e2e

package e2e

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/nodeboot/nodeboot/internal/testing/aemmtest"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// The account and the IAM roles of the suite's instances.
const (
	awsAccount = "111122223333"
	// nodeRole is mapped as EKS documents a node role: system:node:{{EC2PrivateDNSName}},
	// system:bootstrappers and system:nodes.
	nodeRole = "nodeboot-e2e-nodes"
	// unmappedRole is in no mapping.
	unmappedRole = "nodeboot-e2e-unmapped"
	// sessionNameRole is mapped to system:node:{{SessionName}} (the
	// template for nodes named by instance ID) while its nodes are named
	// by private DNS name.
	sessionNameRole = "nodeboot-e2e-sessionname"
	// noGroupsRole is mapped with the right username and no groups.
	noGroupsRole = "nodeboot-e2e-nogroups"
	// probeRole is an operator's role the harness uses to check that the
	// authenticator serves aws-auth.
	probeRole = "nodeboot-e2e-probe"
	probeUser = "nodeboot-e2e:probe"
)

// roleARN is a role's ARN as mappings name it.
func roleARN(name string) string { return "arn:aws:iam::" + awsAccount + ":role/" + name }

// stsHost and ec2Host are the regional endpoints the authenticator calls.
var (
	stsHost = "sts." + region + ".amazonaws.com"
	ec2Host = "ec2." + region + ".amazonaws.com"
)

// awsIdentity is EKS's identity path around the control plane: STS and
// the region's EC2 API as local stubs behind an HTTPS front that answers
// their real host names (the authenticator reaches them through
// HTTPS_PROXY and trusts the front's CA through SSL_CERT_FILE), and the
// instance role sessions each instance's IMDS serves.
type awsIdentity struct {
	sts   *awstest.STS
	ec2   *awstest.EC2
	hosts *awstest.Hosts

	mu       sync.Mutex
	sessions map[string]awstest.Principal // instance ID → its latest role session
}

func newAWSIdentity(t *testing.T) *awsIdentity {
	t.Helper()
	id := &awsIdentity{sts: awstest.NewSTS(t, region), ec2: awstest.NewEC2(t), sessions: map[string]awstest.Principal{}}
	id.hosts = awstest.NewHosts(t, map[string]http.Handler{stsHost: id.sts.Handler(), ec2Host: id.ec2.Handler()})
	return id
}

// launch gives an instance a role: a fresh session of the role named
// after the instance, known to STS, which the instance's IMDS serves; and
// makes the instance known to the control plane's EC2 API under its
// private DNS name (what {{EC2PrivateDNSName}} resolves to).
func (id *awsIdentity) launch(instanceID, instanceType, privateDNSName, role string) *aemmtest.IAMRole {
	p := awstest.AssumedRole(awsAccount, role, instanceID)
	id.sts.AddPrincipal(p)
	id.ec2.AddInstance(awstest.Instance{ID: instanceID, InstanceType: instanceType, PrivateDNSName: privateDNSName, AvailabilityZone: zone})
	id.mu.Lock()
	id.sessions[instanceID] = p
	id.mu.Unlock()
	return &aemmtest.IAMRole{
		InstanceProfileARN: "arn:aws:iam::" + awsAccount + ":instance-profile/" + role + "-profile",
		InstanceProfileID:  "AIPA" + instanceID[2:10],
		RoleName:           role, AccessKeyID: p.AccessKeyID, SecretAccessKey: p.SecretAccessKey, Token: p.SessionToken,
		Expiration: time.Now().Add(6 * time.Hour),
	}
}

// session returns the role session an instance was launched with.
func (id *awsIdentity) session(instanceID string) awstest.Principal {
	id.mu.Lock()
	defer id.mu.Unlock()
	return id.sessions[instanceID]
}

// describedInstance reports whether the control plane asked EC2 about an
// instance (the authenticator resolving {{EC2PrivateDNSName}}).
func (id *awsIdentity) describedInstance(instanceID string) bool {
	for _, form := range id.ec2.Requests() {
		if form.Get("Action") != awstest.ActionDescribeInstances {
			continue
		}
		for k, v := range form {
			if len(k) > len("InstanceId.") && k[:len("InstanceId.")] == "InstanceId." && v[0] == instanceID {
				return true
			}
		}
	}
	return false
}

// token mints the token `aws eks get-token` makes for p: a GetCallerIdentity
// URL presigned with the cluster header, base64url after k8s-aws-v1.
func (id *awsIdentity) token(ctx context.Context, p awstest.Principal) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+stsHost+"/?Action=GetCallerIdentity&Version=2011-06-15&X-Amz-Expires=60", nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("x-k8s-aws-id", clusterName)
	creds := aws.Credentials{AccessKeyID: p.AccessKeyID, SecretAccessKey: p.SecretAccessKey, SessionToken: p.SessionToken}
	hash := "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" // SHA-256 of no body
	url, _, err := v4.NewSigner().PresignHTTP(ctx, creds, req, hash, "sts", region, time.Now().UTC())
	if err != nil {
		return "", fmt.Errorf("presign: %w", err)
	}
	return "k8s-aws-v1." + base64.RawURLEncoding.EncodeToString([]byte(url)), nil
}

// awsAuthRoles is the suite's aws-auth mapRoles, written as an operator
// writes it: the node role as EKS documents it, the two broken mappings the
// doctor must explain, a Windows node role without eks:kube-proxy-windows
// (for nodeboot access), and an operator's probe role.
func awsAuthRoles() string {
	return `- rolearn: ` + roleARN(nodeRole) + `
  username: system:node:{{EC2PrivateDNSName}}
  groups:
    - system:bootstrappers
    - system:nodes
- rolearn: ` + roleARN(sessionNameRole) + `
  username: system:node:{{SessionName}}
  groups:
    - system:bootstrappers
    - system:nodes
- rolearn: ` + roleARN(noGroupsRole) + `
  username: system:node:{{EC2PrivateDNSName}}
- rolearn: ` + roleARN(windowsRole) + `
  username: system:node:{{EC2PrivateDNSName}}
  groups:
    - system:bootstrappers
    - system:nodes
- rolearn: ` + roleARN(probeRole) + `
  username: ` + probeUser + `
  groups: []
`
}
