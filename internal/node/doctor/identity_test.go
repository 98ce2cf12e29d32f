package doctor

import (
	"errors"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
)

func TestIdentityVerdict(t *testing.T) {
	const name = "ip-10-0-0-5.us-west-2.compute.internal"
	ev := func(user string, groups ...string) IdentityEvidence {
		return IdentityEvidence{NodeName: name, NameSource: "--hostname-override", User: kubeapi.UserInfo{Username: user, Groups: groups}}
	}
	status := func(code int, msg string) error {
		return &kubeapi.StatusError{Code: code, Status: kubeapi.Status{Message: msg}}
	}
	boot := IdentityEvidence{NodeName: name, Bootstrap: true}
	checkVerdicts(t, CheckIdentity, []verdictCase{
		{name: "the node's own identity", got: identityVerdict(ev("system:node:"+name, "system:nodes", "system:authenticated")),
			verdict: OK, summary: []string{"system:node:" + name + " in system:nodes"}, evidence: []string{"from --hostname-override"}},
		{name: "name mismatch (hostname vs private DNS name)", got: identityVerdict(ev("system:node:ip-10-0-0-5.ec2.internal", "system:nodes")),
			verdict: Fail, summary: []string{"name mismatch", "system:node:ip-10-0-0-5.ec2.internal", "registers as " + name}},
		{name: "unmapped role", got: identityVerdict(ev("arn:aws:sts::111122223333:assumed-role/nodes/i-0123", "system:authenticated")),
			verdict: Fail, summary: []string{"unmapped", "assumed-role"}},
		{name: "mapped without system:nodes", got: identityVerdict(ev("system:node:"+name, "system:authenticated")),
			verdict: Fail, summary: []string{"not in the group system:nodes"}},
		{name: "bootstrap token still in use", got: identityVerdict(IdentityEvidence{NodeName: name, Bootstrap: true,
			User: kubeapi.UserInfo{Username: "system:bootstrap:abcdef", Groups: []string{"system:bootstrappers"}}}),
			verdict: Fail, summary: []string{"TLS bootstrap has not completed"}},
		{name: "credential rejected", got: identityVerdict(IdentityEvidence{NodeName: name, Err: status(401, "Unauthorized")}),
			verdict: Fail, summary: []string{"rejected the kubelet's credential (401 Unauthorized)"}},
		{name: "bootstrap token rejected", got: identityVerdict(IdentityEvidence{NodeName: boot.NodeName, Bootstrap: true, Err: status(401, "Unauthorized")}),
			verdict: Fail, summary: []string{"bootstrap token", "unknown or expired"}},
		{name: "no SelfSubjectReview API", got: identityVerdict(IdentityEvidence{NodeName: name, Err: status(404, "not found")}),
			verdict: Warn, summary: []string{"1.28"}},
		{name: "forbidden", got: identityVerdict(IdentityEvidence{NodeName: name, Err: status(403, "forbidden")}),
			verdict: Fail, summary: []string{"403"}},
		{name: "network error", got: identityVerdict(IdentityEvidence{NodeName: name, Err: errors.New("EOF")}),
			verdict: Fail, summary: []string{"EOF"}},
	})
}

func TestIdentityMappingAdvice(t *testing.T) {
	const name = "ip-10-0-0-5.us-west-2.compute.internal"
	const instance = "i-0123456789abcdef0"
	role, err := roleOf(InstanceRole{ProfileARN: "arn:aws:iam::111122223333:instance-profile/eks/nodes-profile", RoleName: "nodes"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	eks := func(user string, groups ...string) IdentityEvidence {
		return IdentityEvidence{NodeName: name, NameSource: "EC2", InstanceID: instance, Role: role, EKSToken: true,
			Cluster: "prod", Region: "us-west-2", User: kubeapi.UserInfo{Username: user, Groups: groups}}
	}
	unauthorized := eks("")
	unauthorized.Err = &kubeapi.StatusError{Code: 401, Status: kubeapi.Status{Message: "Unauthorized"}}
	entry := "- rolearn: arn:aws:iam::111122223333:role/nodes\n  username: system:node:{{EC2PrivateDNSName}}\n  groups:\n    - system:bootstrappers\n    - system:nodes"
	command := "aws eks create-access-entry --cluster-name prod --principal-arn arn:aws:iam::111122223333:role/nodes --type EC2_LINUX --region us-west-2"
	byInstanceID := eks("system:node:"+name, "system:nodes")
	byInstanceID.NodeName = instance
	noRole := unauthorized
	noRole.Role, noRole.RoleErr = nil, errors.New("imds meta-data/iam/info: not found")
	checkVerdicts(t, CheckIdentity, []verdictCase{
		{name: "unmapped role: the role, the entry and the access entry", got: identityVerdict(unauthorized), verdict: Fail,
			summary: []string{"401 Unauthorized"}, evidence: []string{"instance role arn:aws:iam::111122223333:role/nodes", entry, command}},
		{name: "SessionName template for a node named by DNS name", got: identityVerdict(eks("system:node:"+instance, "system:nodes")), verdict: Fail,
			summary:  []string{"name mismatch: the credential is system:node:" + instance + " but the kubelet registers as " + name},
			evidence: []string{"the username must be system:node:{{EC2PrivateDNSName}}", entry, command}},
		{name: "DNS-name template for a node named by instance ID", got: identityVerdict(byInstanceID), verdict: Fail,
			evidence: []string{"the username must be system:node:{{SessionName}}", "username: system:node:{{SessionName}}"}},
		{name: "empty node name: the authenticator kept no private DNS name", got: identityVerdict(eks("system:node:", "system:bootstrappers", "system:nodes")), verdict: Fail,
			summary:  []string{"system:node: with no node name", "{{EC2PrivateDNSName}} to an empty name"},
			evidence: []string{"until it restarts"}},
		{name: "no system:nodes", got: identityVerdict(eks("system:node:"+name, "system:authenticated")), verdict: Fail,
			summary: []string{"not in the group system:nodes"}, evidence: []string{entry}},
		{name: "role unknown: said, no entry", got: identityVerdict(noRole), verdict: Fail,
			evidence: []string{"the instance role is unknown: imds meta-data/iam/info: not found"}},
	})
	if ev := identityVerdict(byInstanceID).Evidence; strings.Contains(strings.Join(ev, "\n"), "create-access-entry") {
		t.Errorf("an EC2_LINUX access entry names nodes by DNS name, yet it was offered for a node named by instance ID:\n%s", ev)
	}
	if got := identityVerdict(eks("system:node:"+name, "system:nodes")); got.Verdict != OK || strings.Contains(strings.Join(got.Evidence, "\n"), "mapRoles") {
		t.Errorf("a healthy identity got advice: %q", got.Evidence)
	}
}

func TestEKSTokenArgs(t *testing.T) {
	c, r, ok := eksTokenArgs(&kubeapi.ExecConfig{Command: "/usr/bin/aws", Args: []string{"eks", "get-token", "--cluster-name", "prod", "--region", "eu-west-1"}})
	if !ok || c != "prod" || r != "eu-west-1" {
		t.Errorf("eksTokenArgs = %q %q %v", c, r, ok)
	}
	if _, _, ok := eksTokenArgs(&kubeapi.ExecConfig{Command: "aws-iam-authenticator", Args: []string{"token", "-i", "prod"}}); ok {
		t.Error("aws-iam-authenticator token taken for aws eks get-token")
	}
}
