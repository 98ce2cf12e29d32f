package kubeletapis

import (
	"slices"
	"testing"

	upstream "k8s.io/kubelet/pkg/apis"
)

func TestListsAgreeWithUpstream(t *testing.T) {
	if got, want := KubeletLabels(), upstream.KubeletLabels(); !slices.Equal(got, want) {
		t.Errorf("KubeletLabels() = %q, upstream %q", got, want)
	}
	if got, want := KubeletLabelNamespaces(), upstream.KubeletLabelNamespaces(); !slices.Equal(got, want) {
		t.Errorf("KubeletLabelNamespaces() = %q, upstream %q", got, want)
	}
}

var labelCases = []string{
	"", "kubernetes.io/hostname", "node.kubernetes.io/instance-type", "node.kubernetes.io/anything",
	"foo.node.kubernetes.io/x", "kubelet.kubernetes.io/x", "a.kubelet.kubernetes.io/x", "xnode.kubernetes.io/x",
	"kubernetes.io/role", "node-role.kubernetes.io/worker", "team", "node.kubernetes.io", "/x", "node.kubernetes.io/a/b",
}

func TestIsKubeletLabelAgreesWithUpstream(t *testing.T) {
	for _, k := range labelCases {
		checkLabel(t, k)
	}
}

func FuzzIsKubeletLabel(f *testing.F) {
	for _, k := range labelCases {
		f.Add(k)
	}
	f.Fuzz(checkLabel)
}

func checkLabel(t *testing.T, key string) {
	if got, want := IsKubeletLabel(key), upstream.IsKubeletLabel(key); got != want {
		t.Errorf("IsKubeletLabel(%q) = %v, upstream %v", key, got, want)
	}
}
