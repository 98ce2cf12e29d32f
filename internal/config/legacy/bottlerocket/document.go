package bottlerocket

import (
	"cmp"
	"slices"
)

// document walks the top level: only the settings table is read (as
// Bottlerocket does); any other top-level key is reported and skipped.
func (d *decoder) document(tree map[string]any) {
	settings, found := tree["settings"]
	for _, key := range d.orderedKeys(nil, tree) {
		if key != "settings" {
			d.ignore(keyPath{key}, tree[key], "Bottlerocket only reads the settings table; move it under [settings] or remove it")
		}
	}
	p := keyPath{"settings"}
	if !found {
		d.problems.Errorf(d.src, "settings", d.at(nil), "TOML data did not contain 'settings' section; Bottlerocket user data needs [settings.kubernetes] with at least cluster-name")
		return
	}
	table, ok := d.table(p, settings)
	if !ok {
		return
	}
	if _, ok := table["kubernetes"]; !ok {
		d.errorf(p, "settings.kubernetes.cluster-name is required; add [settings.kubernetes] with cluster-name = \"<EKS cluster name>\"")
	}
	for _, key := range d.orderedKeys(p, table) {
		d.section(p.child(key), table[key])
	}
}

// section dispatches one settings.<name> section.
func (d *decoder) section(p keyPath, v any) {
	switch name := p[len(p)-1]; name {
	case "kubernetes":
		d.kubernetes(p, v)
	case "network":
		d.network(p, v)
	case "dns":
		d.dns(p, v)
	default:
		d.ignore(p, v, sectionReason(name))
	}
}

// orderedKeys returns the keys of table (at path p) in document order,
// then by name, so that problems and Ignored come out in a stable order.
func (d *decoder) orderedKeys(p keyPath, table map[string]any) []string {
	keys := make([]string, 0, len(table))
	for k := range table {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		pa, pb := d.index.at(p.child(a)), d.index.at(p.child(b))
		return cmp.Or(cmp.Compare(pa.Line, pb.Line), cmp.Compare(pa.Column, pb.Column), cmp.Compare(a, b))
	})
	return keys
}
