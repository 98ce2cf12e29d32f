package agent

import (
	"github.com/nodeboot/nodeboot/api/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// unappliedSetting is a setting nodeboot accepts, for compatibility with
// nodeadm user data, but this version does not (fully) carry out. Settings
// of the AL2 and Bottlerocket formats that nodeboot ignores are reported by
// their decoders instead, as they read them.
type unappliedSetting struct {
	// field is the setting's path, as problems name it.
	field string
	// set reports whether the merged spec uses the setting.
	set func(hub.Spec) bool
	// what says what is and is not done.
	what string
}

// unappliedSettings lists every such setting; config check and init warn
// about each one the config uses.
var unappliedSettings = []unappliedSetting{
	{
		field: "spec.featureGates[" + v1alpha1.FeatureFastImagePull + "]",
		set:   func(s hub.Spec) bool { return s.FeatureGates[v1alpha1.FeatureFastImagePull] },
		what: "only partly applied by this version: containerd is configured for the SOCI snapshotter (on machines with " +
			"4 CPUs and 7 GiB or more), but the kubelet's imageServiceEndpoint is not set and /etc/eks/pause.tar is not " +
			"imported into the snapshotter after containerd starts, as nodeadm does; leave the gate off unless the image " +
			"does both",
	},
}

// unappliedWarnings warns about every setting of spec that this version
// does not apply, at the document that set it last.
func (in Input) unappliedWarnings(spec hub.Spec) diag.List {
	var out diag.List
	for _, s := range unappliedSettings {
		if !s.set(spec) {
			continue
		}
		src, pos := diag.Source{URI: "merged configuration"}, diag.Position{}
		for i := len(in.Fragments) - 1; i >= 0; i-- {
			if s.set(in.Fragments[i].Spec) {
				src, pos = in.Fragments[i].Source, in.Fragments[i].Positions.Lookup(s.field)
				break
			}
		}
		out.Warnf(src, s.field, pos, "%s", s.what)
	}
	return out
}
