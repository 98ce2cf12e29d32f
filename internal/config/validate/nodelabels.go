package validate

import (
	"strings"

	"github.com/nodeboot/nodeboot/internal/k8sapi/validation"
)

// kubeletLabels are the labels in the kubernetes.io and k8s.io domains a
// kubelet may set on its own Node (the NodeRestriction rules,
// k8s.io/kubelet/pkg/apis well_known_labels.go).
var kubeletLabels = []string{
	"kubernetes.io/hostname", "kubernetes.io/os", "kubernetes.io/arch",
	"beta.kubernetes.io/os", "beta.kubernetes.io/arch", "beta.kubernetes.io/instance-type",
	"node.kubernetes.io/instance-type",
	"topology.kubernetes.io/zone", "topology.kubernetes.io/region",
	"failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
}

// kubeletLabelDomains are the domains (and their subdomains) whose labels
// a kubelet may set.
var kubeletLabelDomains = []string{"kubelet.kubernetes.io", "node.kubernetes.io"}

// NodeLabelProblem applies the kubelet's checks on one --node-labels
// entry and returns what is wrong, or "": the key must be a qualified
// name, the value a label value, and a key in the kubernetes.io or k8s.io
// domain one the kubelet may set (it refuses to start otherwise).
func NodeLabelProblem(key, value string) string {
	if errs := validation.IsQualifiedName(key); len(errs) > 0 {
		return "key " + key + " is invalid: " + strings.Join(errs, "; ")
	}
	if errs := validation.IsValidLabelValue(value); len(errs) > 0 {
		return "value " + value + " is invalid: " + strings.Join(errs, "; ")
	}
	if inDomain(key, "kubernetes.io", "k8s.io") && !isKubeletLabel(key) {
		return key + " is in the kubernetes.io/k8s.io domain, where a kubelet may only set node.kubernetes.io/…, kubelet.kubernetes.io/… and a few well-known labels; the kubelet would refuse to start"
	}
	return ""
}

func isKubeletLabel(key string) bool {
	for _, l := range kubeletLabels {
		if key == l {
			return true
		}
	}
	return inDomain(key, kubeletLabelDomains...)
}

// inDomain reports whether key's prefix is one of domains or a subdomain.
func inDomain(key string, domains ...string) bool {
	domain, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	for _, d := range domains {
		if domain == d || strings.HasSuffix(domain, "."+d) {
			return true
		}
	}
	return false
}
