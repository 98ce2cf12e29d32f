package schema

import (
	"testing"

	upstream "k8s.io/apimachinery/pkg/runtime/schema"
)

func TestStringAgreesWithUpstream(t *testing.T) {
	for _, gv := range []GroupVersion{{"kubelet.config.k8s.io", "v1beta1"}, {"", "v1"}, {"g", ""}, {}} {
		if got, want := gv.String(), (upstream.GroupVersion{Group: gv.Group, Version: gv.Version}).String(); got != want {
			t.Errorf("%+v: %q, upstream %q", gv, got, want)
		}
	}
}
