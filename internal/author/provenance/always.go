package provenance

import (
	"github.com/nodeboot/nodeboot/internal/author/generate"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/fragment"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// AlwaysOverridden warns, without knowing the node group, about every
// setting of docs that producer p writes in its own part for any group on
// family f (generate.AlwaysWritten): cluster fields, max pods, cluster
// DNS, the producer's labels, Karpenter's taints. Where the producer lets
// the user's value win (EKS on Bottlerocket) the warning says so.
func AlwaysOverridden(docs []userdata.Document, f generate.Family, p generate.Producer) diag.List {
	written := map[string]bool{}
	for _, a := range flatten(generate.AlwaysWritten(f, p)) {
		written[a.key] = true
	}
	userWins := f == generate.FamilyBottlerocket && p == generate.ProducerEKS
	var out diag.List
	for _, d := range docs {
		frags, _ := fragment.Decode(d)
		for _, frag := range frags {
			for _, a := range flatten(frag.Spec) {
				if !written[a.key] || !important(a.key) {
					continue
				}
				pos := frag.Positions.Lookup(a.path)
				if userWins {
					out.Warnf(frag.Source, a.path, pos, "%s: %q set here wins over the value EKS writes for it (EKS lets the user's settings override its own); check that the node still carries what EKS needs", a.key, a.value)
					continue
				}
				out.Warnf(frag.Source, a.path, pos, "%s: %q set here is %s the value %s writes for every node (its part comes after yours and wins)", a.key, a.value, overrideMarker, p.Name())
			}
		}
	}
	return out
}
