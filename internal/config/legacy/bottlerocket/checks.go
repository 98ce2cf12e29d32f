package bottlerocket

import (
	"net/netip"

	"github.com/nodeboot/nodeboot/internal/k8sapi/validation"
)

// These checks let emitters refuse values Bottlerocket would reject. Each
// returns what is wrong, or "".

// ClusterNameProblem checks settings.kubernetes.cluster-name.
func ClusterNameProblem(name string) string {
	if !isClusterName(name) {
		return "is not a cluster name: use 1 to 100 letters, digits, - and _, starting with a letter or digit"
	}
	return ""
}

// LabelProblem checks one node-labels entry.
func LabelProblem(key, value string) string {
	if errs := validation.IsQualifiedName(key); len(errs) > 0 {
		return "key " + key + " is invalid: " + errs[0]
	}
	if errs := validation.IsValidLabelValue(value); len(errs) > 0 {
		return "value " + value + " is invalid: " + errs[0]
	}
	return ""
}

// TaintProblem checks one node-taints entry: the key and a "value:Effect".
func TaintProblem(key, valueEffect string) string {
	if errs := validation.IsQualifiedName(key); len(errs) > 0 {
		return "key " + key + " is invalid: " + errs[0]
	}
	if problem := taintProblem(valueEffect); problem != "" {
		return "taint " + valueEffect + " " + problem
	}
	return ""
}

// NodeIPProblem checks node-ip.
func NodeIPProblem(ip string) string {
	if _, err := netip.ParseAddr(ip); err != nil {
		return "is not an IP address"
	}
	return ""
}

// HostnameProblem checks hostname-override.
func HostnameProblem(name string) string {
	if len(name) > 253 || !isHostname(name) {
		return "is not a hostname: use letters, digits, - and dots, at most 253 characters"
	}
	return ""
}
