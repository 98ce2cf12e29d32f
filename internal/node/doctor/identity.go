package doctor

import (
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/awsauth"
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
	// Role is the instance's IAM role (IMDS), whose credentials sign an
	// EKS token; nil when unknown, RoleErr saying why.
	Role    *awsauth.RoleARN
	RoleErr error
	// InstanceID is the instance's ID (IMDS).
	InstanceID string
	// EKSToken is true when the credential is `aws eks get-token`'s;
	// Cluster and Region are its --cluster-name and --region.
	EKSToken        bool
	Cluster, Region string
}

// identityVerdict checks that the credential is system:node:<name> in
// system:nodes, name being the one the kubelet registers.
func identityVerdict(ev IdentityEvidence) Result {
	r := Result{ID: CheckIdentity}
	want := kubeapi.NodeUserPrefix + ev.NodeName
	r.Evidence = append(r.Evidence, fmt.Sprintf("the kubelet registers as %s (from %s)", orUnknown(ev.NodeName), ev.NameSource))
	r.Evidence = append(r.Evidence, ev.roleEvidence()...)
	if ev.Err != nil {
		r = identityError(r, ev)
		if kubeapi.IsStatus(ev.Err, http.StatusUnauthorized) {
			r = withMappingFix(r, ev)
		}
		return r
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
		r = withMappingFix(r, ev)
	case u.Username == awsauth.UnresolvedNodeUsername:
		r = unresolvedName(r)
	case strings.HasPrefix(u.Username, kubeapi.NodeUserPrefix):
		r = nameMismatch(r, ev, strings.TrimPrefix(u.Username, kubeapi.NodeUserPrefix))
	default:
		r.Verdict = Fail
		r.Summary = fmt.Sprintf("unmapped: the credential authenticates as %q, not as a node (%s)", u.Username, want)
		r.Action = "Map the node's IAM role to username system:node:{{EC2PrivateDNSName}} with group system:nodes (an EC2_LINUX access entry, or aws-auth mapRoles without the role's path)."
		r = withMappingFix(r, ev)
	}
	return r
}

// unresolvedName explains a node user with no name: the authenticator
// rendered {{EC2PrivateDNSName}} from an empty private DNS name it keeps
// for the instance (see awsauth.Session).
func unresolvedName(r Result) Result {
	r.Verdict = Fail
	r.Summary = fmt.Sprintf("the credential is %s with no node name: the authenticator resolved {{EC2PrivateDNSName}} to an empty name", awsauth.UnresolvedNodeUsername)
	r.Evidence = append(r.Evidence, "EKS's authenticator keeps the private DNS name ec2:DescribeInstances first gave for an instance, an empty one included, until it restarts: "+
		"this instance had no private DNS name when its first token was checked")
	r.Action = "Replace the instance (a new instance ID is looked up afresh, and gets its name once it is running), or name nodes by instance ID and map the role to system:node:{{SessionName}}, which needs no DescribeInstances."
	return r
}

// nameMismatch explains a credential for another node name: when the
// mapping renders the instance ID ({{SessionName}}) for a node named by its
// private DNS name, or the other way round, it names the template to use.
func nameMismatch(r Result, ev IdentityEvidence, credName string) Result {
	r.Verdict = Fail
	r.Summary = fmt.Sprintf("name mismatch: the credential is %s%s but the kubelet registers as %s", kubeapi.NodeUserPrefix, credName, ev.NodeName)
	naming := awsauth.NamingOf(ev.NodeName, ev.InstanceID)
	if ev.InstanceID == "" || (credName != ev.InstanceID && naming != awsauth.NameInstanceID) {
		r.Action = fmt.Sprintf("Make the names agree: the kubelet must register under the EC2 private DNS name the identity mapping uses ({{EC2PrivateDNSName}}), so drop a --hostname-override that differs, or fix the mapping (here it says %s).", credName)
		return r
	}
	r.Evidence = append(r.Evidence, fmt.Sprintf("the mapping's username template gives %s, but this node is named by %s: the username must be %s",
		credName, naming, naming.UsernameTemplate()))
	r.Action = fmt.Sprintf("Change the username of the role's mapping to %s (the entry is shown above).", naming.UsernameTemplate())
	return withMappingFix(r, ev)
}

// roleEvidence names the instance role that signs the kubelet's EKS token.
func (ev IdentityEvidence) roleEvidence() []string {
	switch {
	case !ev.EKSToken:
		return nil
	case ev.Role != nil:
		return []string{fmt.Sprintf("the credential is an EKS token signed by instance role %s (the ARN a mapping names: no path)", ev.Role.Mapped())}
	case ev.RoleErr != nil:
		return []string{"the instance role is unknown: " + ev.RoleErr.Error()}
	}
	return nil
}

// withMappingFix adds the exact aws-auth entry and the equivalent access
// entry that map the instance role as a node, when the credential is an
// EKS token and the role is known.
func withMappingFix(r Result, ev IdentityEvidence) Result {
	if !ev.EKSToken || ev.Role == nil || r.Verdict != Fail {
		return r
	}
	naming := awsauth.NamingOf(ev.NodeName, ev.InstanceID)
	entry := awsauth.NodeEntryFor(ev.Role.Mapped(), false, naming)
	r.Evidence = append(r.Evidence, "the kube-system/aws-auth mapRoles entry that lets this node in:\n"+strings.TrimSuffix(entry.YAML(), "\n"))
	if naming == awsauth.NamePrivateDNS {
		r.Evidence = append(r.Evidence, "or the equivalent EKS access entry (EKS sets the username and groups; the cluster's authentication mode must be API or API_AND_CONFIG_MAP):\n"+
			awsauth.AccessEntryCommand(orUnknown(ev.Cluster), ev.Region, ev.Role.Mapped(), false))
	}
	if !strings.HasPrefix(r.Action, "Change the username") {
		r.Action = "Add the aws-auth entry shown above to kube-system/aws-auth (or create the access entry shown); `nodeboot access check` shows how every node group's role is mapped before nodes launch."
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

// eksTokenArgs reads --cluster-name and --region from a credential plugin
// that is `aws eks get-token`.
func eksTokenArgs(exec *kubeapi.ExecConfig) (cluster, region string, ok bool) {
	if exec == nil || filepath.Base(exec.Command) != "aws" || len(exec.Args) < 2 || exec.Args[0] != "eks" || exec.Args[1] != "get-token" {
		return "", "", false
	}
	for i := 2; i+1 < len(exec.Args); i++ {
		switch exec.Args[i] {
		case "--cluster-name", "--cluster-id":
			cluster = exec.Args[i+1]
		case "--region":
			region = exec.Args[i+1]
		}
	}
	return cluster, region, true
}

// InstanceRole is the instance profile's role, as IMDS tells it.
type InstanceRole struct {
	ProfileARN, RoleName string
}

// roleOf turns IMDS's answer into the role's ARN.
func roleOf(r InstanceRole, err error) (*awsauth.RoleARN, error) {
	if err != nil {
		return nil, err
	}
	arn, err := awsauth.RoleFromInstanceProfile(r.ProfileARN, r.RoleName)
	if err != nil {
		return nil, err
	}
	return &arn, nil
}
