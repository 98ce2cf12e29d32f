package nodegroup

import (
	"maps"
	"slices"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/eni"
)

// ProducerDomains are the label domains the producers write themselves.
var ProducerDomains = []string{"eks.amazonaws.com", "alpha.eksctl.io", "karpenter.sh"}

// warnings notes what is allowed but probably not meant.
func warnings(d Decoded) diag.List {
	var out diag.List
	spec := d.Group.Spec
	warn := func(path, format string, args ...any) {
		out.Warnf(d.Source, path, d.Positions.Lookup(path), format, args...)
	}
	for _, k := range slices.Sorted(maps.Keys(spec.Labels)) {
		domain, _, _ := strings.Cut(k, "/")
		for _, owned := range ProducerDomains {
			if domain == owned {
				warn("spec.labels["+k+"]", "is in %s, a domain EKS, eksctl or Karpenter label nodes in themselves; the producer's value wins", owned)
			}
		}
	}
	m := spec.MaxPods
	switch {
	case spec.InstanceType != "":
		if _, ok := eni.Lookup(spec.InstanceType); !ok && m.Value == 0 {
			warn("spec.instanceType", "%s is not in nodeboot's ENI table; max pods are left to the node (set spec.maxPods.value to choose)", spec.InstanceType)
		}
	case m.Value == 0 && (m.PrefixDelegation || m.CustomNetworking || m.MaxENIs > 0 || m.Cap):
		warn("spec.maxPods", "the max-pods policy needs spec.instanceType (or give spec.maxPods.value); max pods are left to the node")
	}
	return out
}
