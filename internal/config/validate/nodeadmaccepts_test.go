package validate

import (
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// TestNodeadmAccepts: values the real nodeadm boots with (the oracle's
// hand-written cases run them through it) are errors marked
// OriginNodeadmAccepts, so init boots them, warning, and config check and
// init --strict refuse; values it does not boot with stay plain errors.
func TestNodeadmAccepts(t *testing.T) {
	tests := []struct {
		name     string
		spec     hub.Spec
		field    string
		accepted bool
	}{
		{name: "endpoint without scheme", spec: hub.Spec{Cluster: hub.Cluster{APIServerEndpoint: "abc.eks.amazonaws.com"}},
			field: "spec.cluster.apiServerEndpoint", accepted: true},
		{name: "endpoint host:port without scheme", spec: hub.Spec{Cluster: hub.Cluster{APIServerEndpoint: "abc.eks.amazonaws.com:443"}},
			field: "spec.cluster.apiServerEndpoint", accepted: true},
		{name: "endpoint ftp", spec: hub.Spec{Cluster: hub.Cluster{APIServerEndpoint: "ftp://abc"}},
			field: "spec.cluster.apiServerEndpoint"},
		{name: "unknown feature gate", spec: hub.Spec{FeatureGates: map[string]bool{"Foo": true}},
			field: "spec.featureGates[Foo]", accepted: true},
		{name: "strategy in lower case", spec: hub.Spec{Instance: hub.Instance{LocalStorage: hub.LocalStorage{Strategy: "raid0"}}},
			field: "spec.instance.localStorage.strategy", accepted: true},
		{name: "unknown strategy", spec: hub.Spec{Instance: hub.Instance{LocalStorage: hub.LocalStorage{Strategy: "raid5"}}},
			field: "spec.instance.localStorage.strategy"},
		{name: "several flags in one item", spec: hub.Spec{Kubelet: hub.Kubelet{Flags: []string{"--v=2 --node-labels=a=b"}}},
			field: "spec.kubelet.flags[0]", accepted: true},
		{name: "shorthand flag", spec: hub.Spec{Kubelet: hub.Kubelet{Flags: []string{"-v=2"}}},
			field: "spec.kubelet.flags[0]", accepted: true},
		{name: "no dash: the kubelet refuses a stray word", spec: hub.Spec{Kubelet: hub.Kubelet{Flags: []string{"v=2"}}},
			field: "spec.kubelet.flags[0]"},
		{name: "quoted blank: the kubelet gets two broken words", spec: hub.Spec{Kubelet: hub.Kubelet{Flags: []string{`--node-labels="a=b c"`}}},
			field: "spec.kubelet.flags[0]"},
		{name: "a flag that takes the next as its value", spec: hub.Spec{Kubelet: hub.Kubelet{Flags: []string{"--node-labels --v=9"}}},
			field: "spec.kubelet.flags[0]"},
		{name: "a boolean flag then another", spec: hub.Spec{Kubelet: hub.Kubelet{Flags: []string{"--fail-swap-on --v=9"}}},
			field: "spec.kubelet.flags[0]", accepted: true},
		{name: "environment name systemd ignores", spec: hub.Spec{Instance: hub.Instance{Environment: map[string]map[string]string{"kubelet": {"A-B": "x"}}}},
			field: "spec.instance.environment[kubelet][A-B]", accepted: true},
		{name: "environment name that would set another variable", spec: hub.Spec{Instance: hub.Instance{Environment: map[string]map[string]string{"kubelet": {"A=B": "x"}}}},
			field: "spec.instance.environment[kubelet][A=B]"},
		{name: "a word that is no flag", spec: hub.Spec{Kubelet: hub.Kubelet{Flags: []string{"--v=2 x"}}},
			field: "spec.kubelet.flags[0]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errs := Spec(tc.spec)
			if len(errs) != 1 || errs[0].Field != tc.field {
				t.Fatalf("want one error at %s, got:\n%s", tc.field, render(errs))
			}
			if got := errs[0].Origin == diag.OriginNodeadmAccepts; got != tc.accepted {
				t.Errorf("nodeadm accepts = %v, want %v: %s", got, tc.accepted, errs[0])
			}
		})
	}
}
