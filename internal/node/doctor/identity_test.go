package doctor

import (
	"errors"
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
