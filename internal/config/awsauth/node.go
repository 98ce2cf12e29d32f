package awsauth

import (
	"fmt"
	"slices"
	"strings"
)

// What a node's identity must be.
const (
	NodeUserPrefix        = "system:node:"
	GroupBootstrappers    = "system:bootstrappers"
	GroupNodes            = "system:nodes"
	GroupKubeProxyWindows = "eks:kube-proxy-windows"
)

// NodeNaming is how a node group's kubelets name their Node.
type NodeNaming int

// Node naming: the EC2 private DNS name (EKS's default, and nodeadm's
// without the InstanceIdNodeName feature gate), or the instance ID.
const (
	NamePrivateDNS NodeNaming = iota
	NameInstanceID
)

// UsernameTemplate is the username a node role's mapping must use for nodes
// named this way.
func (n NodeNaming) UsernameTemplate() string {
	if n == NameInstanceID {
		return NodeUserPrefix + TplSessionName
	}
	return NodeUserPrefix + TplEC2PrivateDNSName
}

func (n NodeNaming) String() string {
	if n == NameInstanceID {
		return "the instance ID"
	}
	return "the EC2 private DNS name"
}

// NodeGroups are the groups a node role's mapping must give.
func NodeGroups(windows bool) []string {
	if windows {
		return []string{GroupBootstrappers, GroupNodes, GroupKubeProxyWindows}
	}
	return []string{GroupBootstrappers, GroupNodes}
}

// NodeEntry is the aws-auth mapRoles entry a node role needs.
type NodeEntry struct {
	RoleARN  string   `json:"rolearn"`
	Username string   `json:"username"`
	Groups   []string `json:"groups"`
}

// NodeEntryFor returns the entry for a node role (its ARN without path).
func NodeEntryFor(roleARN string, windows bool, naming NodeNaming) NodeEntry {
	return NodeEntry{RoleARN: roleARN, Username: naming.UsernameTemplate(), Groups: NodeGroups(windows)}
}

// YAML renders the entry as a mapRoles list item, as it is written into
// the ConfigMap's mapRoles value.
func (e NodeEntry) YAML() string {
	var b strings.Builder
	fmt.Fprintf(&b, "- rolearn: %s\n  username: %s\n  groups:\n", e.RoleARN, e.Username)
	for _, g := range e.Groups {
		fmt.Fprintf(&b, "    - %s\n", g)
	}
	return b.String()
}

// AccessEntryType is the EKS access entry type for a node role.
func AccessEntryType(windows bool) string {
	if windows {
		return "EC2_WINDOWS"
	}
	return "EC2_LINUX"
}

// AccessEntryCommand is the AWS CLI command that creates the access entry
// for a node role (EKS then sets the username and groups itself); region may
// be empty.
func AccessEntryCommand(cluster, region, roleARN string, windows bool) string {
	cmd := fmt.Sprintf("aws eks create-access-entry --cluster-name %s --principal-arn %s --type %s", cluster, roleARN, AccessEntryType(windows))
	if region != "" {
		cmd += " --region " + region
	}
	return cmd
}

// Severity of a finding.
type Severity string

// Severities: an error keeps nodes from joining or working; a warning is a
// departure from EKS's documented entry that does not.
const (
	SevError   Severity = "error"
	SevWarning Severity = "warning"
)

// Finding is one problem with a node role's mapping.
type Finding struct {
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Message  string   `json:"message"`
}

// CheckNodeMapping judges the username and groups a node role is mapped to
// for nodes named by naming (and Windows nodes when windows).
func CheckNodeMapping(username string, groups []string, naming NodeNaming, windows bool) []Finding {
	var out []Finding
	add := func(sev Severity, code, format string, args ...any) {
		out = append(out, Finding{Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)})
	}
	want := naming.UsernameTemplate()
	switch unknown := UnknownPlaceholders(username); {
	case len(unknown) > 0:
		add(SevError, "unknown-placeholder", "username %q has %s, which the authenticator does not replace: every node gets that literal name; use %s",
			username, strings.Join(unknown, ", "), want)
	case !strings.HasPrefix(username, NodeUserPrefix):
		add(SevError, "username-not-node", "username %q is not system:node:…: the node authorizer does not treat the kubelet as a node and it cannot register; use %s", username, want)
	case !usernameFits(username, naming):
		add(SevError, "username-template", "username %q does not give the name the kubelet registers under (%s): NodeRestriction refuses its Node; use %s",
			username, naming, want)
	}
	if !slices.Contains(groups, GroupNodes) {
		add(SevError, "group-missing", "groups lack %s: the kubelet is not authorized as a node and never registers", GroupNodes)
	}
	if !slices.Contains(groups, GroupBootstrappers) {
		add(SevWarning, "group-missing", "groups lack %s, which EKS's node entry has (it lets the kubelet request certificates through bindings made for bootstrapping nodes)", GroupBootstrappers)
	}
	if windows && !slices.Contains(groups, GroupKubeProxyWindows) {
		add(SevError, "group-missing", "groups lack %s: kube-proxy on Windows nodes runs with the node's identity and cannot start without it", GroupKubeProxyWindows)
	}
	return out
}

// usernameFits reports whether a system:node: username renders to the
// name nodes named by naming register under.
func usernameFits(username string, naming NodeNaming) bool {
	switch rest := strings.TrimPrefix(username, NodeUserPrefix); naming {
	case NameInstanceID:
		// The session name of an instance role is the instance ID; raw or
		// not makes no difference there.
		return rest == TplSessionName || rest == TplSessionNameRaw
	default:
		return rest == TplEC2PrivateDNSName
	}
}

// NamingOf tells how a node is named from its name and instance ID.
func NamingOf(nodeName, instanceID string) NodeNaming {
	if nodeName != "" && nodeName == instanceID {
		return NameInstanceID
	}
	return NamePrivateDNS
}
