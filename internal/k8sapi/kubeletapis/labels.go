// Package kubeletapis is the node labels a kubelet may set on its own Node
// (k8s.io/kubelet/pkg/apis), without linking k8s.io/api for their names.
package kubeletapis

import (
	"slices"
	"strings"
)

// kubeletLabels are the well-known labels a kubelet may set, sorted.
var kubeletLabels = []string{
	"beta.kubernetes.io/arch",
	"beta.kubernetes.io/instance-type",
	"beta.kubernetes.io/os",
	"failure-domain.beta.kubernetes.io/region",
	"failure-domain.beta.kubernetes.io/zone",
	"kubernetes.io/arch",
	"kubernetes.io/hostname",
	"kubernetes.io/os",
	"node.kubernetes.io/instance-type",
	"topology.kubernetes.io/region",
	"topology.kubernetes.io/zone",
}

// kubeletLabelNamespaces are the label prefixes (and their subdomains) a
// kubelet may set any label in, sorted.
var kubeletLabelNamespaces = []string{"kubelet.kubernetes.io", "node.kubernetes.io"}

// KubeletLabels returns the well-known labels a kubelet may set, sorted.
func KubeletLabels() []string { return slices.Clone(kubeletLabels) }

// KubeletLabelNamespaces returns the prefixes a kubelet may use, sorted.
func KubeletLabelNamespaces() []string { return slices.Clone(kubeletLabelNamespaces) }

// IsKubeletLabel reports whether a kubelet may set the label key on its Node.
func IsKubeletLabel(key string) bool {
	if _, found := slices.BinarySearch(kubeletLabels, key); found {
		return true
	}
	namespace, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	for _, allowed := range kubeletLabelNamespaces {
		if namespace == allowed || strings.HasSuffix(namespace, "."+allowed) {
			return true
		}
	}
	return false
}
