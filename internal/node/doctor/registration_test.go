package doctor

import (
	"errors"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
)

func TestRegistrationVerdict(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	node := func(providerID string, conds ...kubeapi.NodeCondition) *kubeapi.Node {
		return &kubeapi.Node{Metadata: kubeapi.ObjectMeta{Name: "n1", CreationTimestamp: now.Add(-time.Minute)}, Spec: kubeapi.NodeSpec{ProviderID: providerID},
			Status: kubeapi.NodeStatus{Conditions: conds, Addresses: []kubeapi.NodeAddress{{Type: "InternalIP", Address: "10.0.0.5"}}}}
	}
	ready := kubeapi.NodeCondition{Type: "Ready", Status: "True", Reason: "KubeletReady", LastTransitionTime: now.Add(-30 * time.Second)}
	notReady := kubeapi.NodeCondition{Type: "Ready", Status: "False", Reason: "KubeletNotReady", Message: "container runtime network not ready: cni plugin not initialized"}
	ev := func(n *kubeapi.Node, err error) RegistrationEvidence {
		return RegistrationEvidence{NodeName: "n1", ProviderID: "aws:///us-west-2a/i-1", Node: n, Err: err}
	}
	checkVerdicts(t, CheckRegistered, []verdictCase{
		{name: "registered and Ready", got: registrationVerdict(ev(node("aws:///us-west-2a/i-1", ready), nil), IdentityEvidence{}, now),
			verdict: OK, summary: []string{"registered and Ready", "30s ago"}, evidence: []string{"InternalIP 10.0.0.5", "aws:///us-west-2a/i-1"}},
		{name: "not Ready", got: registrationVerdict(ev(node("aws:///us-west-2a/i-1", notReady), nil), IdentityEvidence{}, now),
			verdict: Warn, summary: []string{"Ready=False", "cni plugin not initialized"}},
		{name: "no Ready condition yet", got: registrationVerdict(ev(node(""), nil), IdentityEvidence{}, now),
			verdict: Warn, summary: []string{"no Ready condition"}},
		{name: "a stale Node of another instance", got: registrationVerdict(ev(node("aws:///us-west-2b/i-9", ready), nil), IdentityEvidence{}, now),
			verdict: Fail, summary: []string{"another instance", "i-9"}},
		{name: "not registered", got: registrationVerdict(ev(nil, &kubeapi.StatusError{Code: 404}), IdentityEvidence{}, now),
			verdict: Fail, summary: []string{"Node n1 is not registered"}},
		{name: "forbidden after the identity proved right: authorization, not the name", got: registrationVerdict(ev(nil, &kubeapi.StatusError{Code: 403}),
			IdentityEvidence{User: kubeapi.UserInfo{Username: "system:node:n1", Groups: []string{"system:nodes", "system:authenticated"}}}, now),
			verdict: Fail, summary: []string{"authorization", "refuses system:node:n1 (groups system:nodes, system:authenticated) to get Node n1 (403 Forbidden)"}},
		{name: "error", got: registrationVerdict(ev(nil, errors.New("EOF")), IdentityEvidence{}, now),
			verdict: Fail, summary: []string{"EOF"}},
	})
}
