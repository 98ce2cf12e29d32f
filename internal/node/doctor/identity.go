package doctor

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
)

// IdentityEvidence is who the API server says the kubelet's credential is,
// and the name the kubelet registers under.
type IdentityEvidence struct {
	NodeName, NameSource string
	// Bootstrap is true when the credential is the bootstrap token.
	Bootstrap bool
	User      kubeapi.UserInfo
	Err       error
}

// identityVerdict checks that the credential is system:node:<name> in
// system:nodes, name being the one the kubelet registers.
func identityVerdict(ev IdentityEvidence) Result {
	r := Result{ID: CheckIdentity}
	want := kubeapi.NodeUserPrefix + ev.NodeName
	r.Evidence = append(r.Evidence, fmt.Sprintf("the kubelet registers as %s (from %s)", orUnknown(ev.NodeName), ev.NameSource))
	if ev.Err != nil {
		return identityError(r, ev)
	}
	u := ev.User
	r.Evidence = append(r.Evidence, fmt.Sprintf("SelfSubjectReview: user %q, groups %s", u.Username, strings.Join(u.Groups, ", ")))
	isNode := slices.Contains(u.Groups, kubeapi.NodesGroup)
	switch {
	case strings.HasPrefix(u.Username, kubeapi.BootstrapUserPrefix) && ev.Bootstrap:
		r.Verdict = Fail
		r.Summary = fmt.Sprintf("the kubelet still authenticates with its bootstrap token as %s: TLS bootstrap has not completed", u.Username)
		r.Action = "Check the kubelet's client CSR (kubectl get csr): system:bootstrappers must be allowed to create it and it must be auto-approved (the nodeclient ClusterRoleBinding) and issued."
	case u.Username == want && isNode:
		r.Verdict, r.Summary = OK, fmt.Sprintf("%s in %s", u.Username, kubeapi.NodesGroup)
	case u.Username == want:
		r.Verdict = Fail
		r.Summary = fmt.Sprintf("%s is not in the group %s", u.Username, kubeapi.NodesGroup)
		r.Action = "Add system:nodes to the groups of the node role's mapping (aws-auth mapRoles, or use an EC2_LINUX access entry, which sets it)."
	case strings.HasPrefix(u.Username, kubeapi.NodeUserPrefix):
		r.Verdict = Fail
		r.Summary = fmt.Sprintf("name mismatch: the credential is %s but the kubelet registers as %s", u.Username, ev.NodeName)
		r.Action = fmt.Sprintf("Make the names agree: the kubelet must register under the EC2 private DNS name the identity mapping uses ({{EC2PrivateDNSName}}), so drop a --hostname-override that differs, or fix the mapping (here it says %s).",
			strings.TrimPrefix(u.Username, kubeapi.NodeUserPrefix))
	default:
		r.Verdict = Fail
		r.Summary = fmt.Sprintf("unmapped: the credential authenticates as %q, not as a node (%s)", u.Username, want)
		r.Action = "Map the node's IAM role to username system:node:{{EC2PrivateDNSName}} with group system:nodes (an EC2_LINUX access entry, or aws-auth mapRoles without the role's path)."
	}
	return r
}

func identityError(r Result, ev IdentityEvidence) Result {
	r.Verdict = Fail
	switch {
	case kubeapi.IsStatus(ev.Err, http.StatusUnauthorized) && ev.Bootstrap:
		r.Summary = "the API server rejected the bootstrap token (401 Unauthorized): it is unknown or expired"
		r.Action = "Create a new bootstrap token (kubeadm token create) and put it in spec.identity.bootstrapToken.token."
	case kubeapi.IsStatus(ev.Err, http.StatusUnauthorized):
		r.Summary = "the API server rejected the kubelet's credential (401 Unauthorized)"
		r.Action = "Map the node's IAM role in the cluster (an EC2_LINUX access entry, or aws-auth mapRoles with the role ARN without its path) and check the cluster name in the credential plugin's arguments."
	case kubeapi.IsStatus(ev.Err, http.StatusNotFound):
		r.Verdict = Warn
		r.Summary = "the API server has no SelfSubjectReview API (Kubernetes older than 1.28): the identity could not be checked"
		r.Action = "Upgrade the control plane, or check the mapping by hand with `kubectl auth whoami` run with the kubelet's kubeconfig."
	case kubeapi.IsStatus(ev.Err, http.StatusForbidden):
		r.Summary = "the kubelet's credential may not even review itself (403 Forbidden): " + ev.Err.Error()
		r.Action = "Restore the default RBAC (system:basic-user bound to system:authenticated)."
	default:
		r.Summary = "SelfSubjectReview failed: " + ev.Err.Error()
		r.Action = "Read the error: the connection worked a moment ago (API endpoint check), so look for a proxy or load balancer in between."
	}
	return r
}
