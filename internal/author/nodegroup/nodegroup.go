package nodegroup

import (
	"cmp"
	"slices"

	v1alpha1 "github.com/nodeboot/nodeboot/api/nodegroup/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/config/decode"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// Decoded is one NodeGroup document read from user input.
type Decoded struct {
	// Group is the document. When the problems returned with it include
	// errors it is best effort and must not be used.
	Group v1alpha1.NodeGroup
	// Source is where the document came from.
	Source diag.Source
	// Positions maps field paths ("spec.taints[0].effect") to where their
	// values stand.
	Positions diag.Positions
}

// Read splits data (which may be base64 or gzip, as user data can be) and
// decodes the one NodeGroup document in it. uri names it in problems.
func Read(uri string, data []byte) (Decoded, diag.List) {
	src := diag.Source{URI: uri}
	docs, problems := userdata.Split(src, data)
	switch {
	case problems.HasErrors():
		return Decoded{Source: src}, problems
	case len(docs) != 1 || docs[0].Format != userdata.FormatNodeConfig:
		problems.Errorf(src, "", diag.Position{}, "a NodeGroup file holds one YAML or JSON document (%s: %s)", v1alpha1.APIVersion, v1alpha1.Kind)
		return Decoded{Source: src}, problems
	}
	d, more := Decode(docs[0])
	return d, append(problems, more...)
}

// Decode reads one YAML or JSON NodeGroup document strictly and checks its
// values.
func Decode(doc userdata.Document) (Decoded, diag.List) {
	d := Decoded{Source: doc.Source}
	schema := decode.Schema{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.Kind}
	schema.Validate = func() fieldErrors { return validateGroup(d.Group) }
	positions, problems := decode.Object(doc, schema, &d.Group)
	d.Positions = positions
	problems = append(problems, warnings(d)...)
	slices.SortStableFunc(problems, func(a, b diag.Problem) int {
		return cmp.Or(cmp.Compare(a.Position.Line, b.Position.Line), cmp.Compare(a.Position.Column, b.Position.Column))
	})
	return d, problems
}

// Hub returns the node settings of the group that a NodeConfig also has,
// under the same field paths (spec.cluster.*, spec.kubelet.*,
// spec.containerd.*).
func Hub(spec v1alpha1.NodeGroupSpec) hub.Spec {
	return hub.Spec{
		Cluster: hub.Cluster{
			Name:                 spec.Cluster.Name,
			APIServerEndpoint:    spec.Cluster.APIServerEndpoint,
			CertificateAuthority: spec.Cluster.CertificateAuthority,
			CIDR:                 spec.Cluster.CIDR,
		},
		Kubelet:    hub.Kubelet{Config: spec.Kubelet.Config, Flags: spec.Kubelet.Flags},
		Containerd: hub.Containerd{Config: spec.Containerd.Config, BaseRuntimeSpec: spec.Containerd.BaseRuntimeSpec},
	}
}

// CapacityType returns the group's capacity type, ON_DEMAND when unset.
func CapacityType(spec v1alpha1.NodeGroupSpec) string {
	if spec.CapacityType == "" {
		return v1alpha1.CapacityOnDemand
	}
	return spec.CapacityType
}
