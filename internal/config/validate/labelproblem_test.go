package validate

import (
	"strings"
	"testing"
)

func TestLabelProblem(t *testing.T) {
	for _, tc := range []struct {
		name, key, value, want string
	}{
		{name: "plain", key: "team", value: "a"},
		{name: "own domain", key: "example.com/team", value: ""},
		{name: "node domain", key: "node.kubernetes.io/role", value: "x"},
		{name: "node subdomain", key: "a.node.kubernetes.io/role", value: "x"},
		{name: "well known", key: "topology.kubernetes.io/zone", value: "us-west-2a"},
		{name: "restricted", key: "kubernetes.io/role", value: "worker", want: "kubernetes.io/k8s.io namespace"},
		{name: "restricted k8s.io", key: "foo.k8s.io/x", value: "y", want: "kubernetes.io/k8s.io namespace"},
		{name: "bad key", key: "a b", value: "y", want: `node label key "a b" is invalid`},
		{name: "bad value", key: "a", value: "-x", want: `has an invalid value "-x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := LabelProblem(tc.key, tc.value)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Fatalf("LabelProblem(%q, %q) = %q, want %q", tc.key, tc.value, got, tc.want)
			}
		})
	}
}
