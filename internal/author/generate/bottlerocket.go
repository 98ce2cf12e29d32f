package generate

import (
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/pelletier/go-toml/v2"

	"github.com/nodeboot/nodeboot/internal/author/convert"
	"github.com/nodeboot/nodeboot/internal/author/tomlwrite"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/legacy/bottlerocket"
	"github.com/nodeboot/nodeboot/internal/config/tomlsyntax"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// bottlerocketSettings builds the producer's own settings: the cluster,
// cluster DNS (EKS), max pods, labels, taints and, for eksctl and
// Karpenter, the kubelet config fields that have a setting.
func bottlerocketSettings(in *injection, own hub.Kubelet) *tomlwrite.Table {
	root := tomlwrite.NewTable()
	k8s := root.Table("settings").Table("kubernetes")
	ca := ""
	if len(in.cluster.CertificateAuthority) > 0 {
		ca = base64.StdEncoding.EncodeToString(in.cluster.CertificateAuthority)
	}
	setIf := func(key, value string) {
		if value != "" {
			k8s.Set(key, value)
		}
	}
	if in.producer == ProducerKarpenter {
		setIf("api-server", in.cluster.APIServerEndpoint)
		setIf("cluster-certificate", ca)
		k8s.Set("cluster-name", in.cluster.Name)
	} else {
		k8s.Set("cluster-name", in.cluster.Name)
		setIf("api-server", in.cluster.APIServerEndpoint)
		setIf("cluster-certificate", ca)
		if in.producer == ProducerEKS {
			// eksctl writes cluster-dns-ip only from a self-managed
			// group's clusterDNS, which a NodeGroup does not have; the
			// node then derives it from the service CIDR.
			setIf("cluster-dns-ip", in.dns)
		}
	}
	if in.maxPods > 0 {
		k8s.Set("max-pods", int64(in.maxPods))
	}
	labels := k8s.Table("node-labels")
	for _, l := range in.labels {
		labels.Set(l.key, l.value)
	}
	bottlerocketTaints(in, k8s)
	kubeletSettings(in, own, k8s)
	return root
}

// bottlerocketTaints writes node-taints, key = "value:Effect": Karpenter
// an array per key, EKS an array only for a key with several taints,
// eksctl the last taint of each key.
func bottlerocketTaints(in *injection, k8s *tomlwrite.Table) {
	taints := k8s.Table("node-taints")
	for _, t := range in.taints {
		value := t.Value + ":" + t.Effect
		prev, seen := taints.Get(t.Key)
		switch {
		case in.producer == ProducerKarpenter && seen:
			taints.Set(t.Key, append(prev.([]any), value))
		case in.producer == ProducerKarpenter:
			taints.Set(t.Key, []any{value})
		case in.producer == ProducerEksctl && seen:
			// eksctl keeps one taint per key (a map by key), the last.
			in.notes.add("spec.taints: eksctl writes one Bottlerocket taint per key, the last: %s=%s is lost; give each taint its own key", t.Key, prev)
			taints.Set(t.Key, value)
		case seen:
			if s, one := prev.(string); one {
				prev = []any{s}
			}
			taints.Set(t.Key, append(prev.([]any), value))
		default:
			taints.Set(t.Key, value)
		}
	}
	if in.producer == ProducerKarpenter && len(in.taints) == 0 {
		k8s.Delete("node-taints")
	}
}

// kubeletSettings writes the kubelet config fields that have a
// Bottlerocket setting (and, for Karpenter, one its model has); the
// others are noted.
func kubeletSettings(in *injection, own hub.Kubelet, k8s *tomlwrite.Table) {
	for _, key := range slices.Sorted(maps.Keys(own.Config)) {
		s, ok := bottlerocket.ConfigSettingFor(key)
		if !ok {
			in.notes.add("spec.kubelet.config[%s]: Bottlerocket has no setting for it; left out", key)
			continue
		}
		if _, known := KarpenterBottlerocketKind(s.Key); in.producer == ProducerKarpenter && !known {
			in.notes.add("spec.kubelet.config[%s]: Karpenter's Bottlerocket model has no %s setting; left out", key, s.Key)
			continue
		}
		v, err := s.Encode(own.Config[key])
		if err != nil {
			in.notes.add("spec.kubelet.config[%s]: cannot be written as settings.kubernetes.%s: %v", key, s.Key, err)
			continue
		}
		if kind, _ := KarpenterBottlerocketKind(s.Key); in.producer == ProducerKarpenter && kind == KindString {
			// Karpenter's model holds the image GC percents as strings.
			if n, isInt := v.(int64); isInt {
				v = strconv.FormatInt(n, 10)
			}
		}
		k8s.Set(s.Key, v)
	}
}

// bottlerocketExtrasLayer writes the group's user-part settings (kubelet
// flags, and for EKS the kubelet config) as settings, leaving out the
// cluster name convert always writes.
func bottlerocketExtrasLayer(e extras, cluster string, n *notes) (map[string]any, []byte, error) {
	spec := e.user
	spec.Cluster.Name = cluster
	text, left, err := convert.Bottlerocket(spec)
	if err != nil {
		return nil, nil, err
	}
	for _, l := range left {
		n.add("%s (Bottlerocket)", l)
	}
	var tree map[string]any
	if err := toml.Unmarshal(text, &tree); err != nil {
		return nil, nil, err
	}
	k8s, _ := lookupTable(tree, "settings", "kubernetes")
	delete(k8s, "cluster-name")
	out, err := writeTree(tree, false)
	return tree, out, err
}

// userTOML reads a user layer.
func userTOML(p Part) (map[string]any, error) {
	var tree map[string]any
	if err := toml.Unmarshal(p.Body, &tree); err != nil {
		return nil, fmt.Errorf("%w: %s is not TOML Bottlerocket can read: %v", ErrUserData, p.Source, err)
	}
	return tree, nil
}

// mergeBottlerocket merges the user layers with the producer's settings
// the way the producer does and returns the final TOML.
func mergeBottlerocket(in *injection, gen *tomlwrite.Table, user []map[string]any) ([]byte, error) {
	combined := map[string]any{}
	for _, layer := range user {
		deepMerge(combined, layer)
	}
	switch in.producer {
	case ProducerEKS:
		// User values override EKS's, key by key.
		overlay(gen, combined)
		text, err := tomlwrite.WriteDotted(gen, true)
		return []byte(text), err
	case ProducerKarpenter:
		return karpenterMerge(in, gen, combined)
	}
	// eksctl writes the group's settings into its own document.
	overlay(gen, combined)
	text, err := tomlwrite.Write(gen)
	return []byte(text), err
}

// karpenterMerge builds what Karpenter writes for Bottlerocket: the user's
// settings.kubernetes filtered by Karpenter's model of it (unknown keys
// dropped), the cluster fields, max pods and kubelet settings written over
// it, the labels merged (its own winning) and node-taints replaced; the
// user's other settings sections kept.
func karpenterMerge(in *injection, gen *tomlwrite.Table, user map[string]any) ([]byte, error) {
	userK8s, _ := lookupTable(user, "settings", "kubernetes")
	k8s := karpenterKubernetes(gen.Table("settings").Table("kubernetes"), userK8s)
	for _, key := range slices.Sorted(maps.Keys(userK8s)) {
		if _, known := KarpenterBottlerocketKind(key); !known {
			in.notes.add("settings.kubernetes.%s: Karpenter's Bottlerocket model has no such setting and drops it", tomlsyntax.QuoteKey(key))
		}
	}
	root := tomlwrite.NewTable()
	karpenterSettings(in, root.Table("settings"), k8s, user)
	for _, key := range slices.Sorted(maps.Keys(user)) {
		if key != "settings" {
			in.notes.add("%s: Bottlerocket only reads the settings table; Karpenter drops it", tomlsyntax.QuoteKey(key))
		}
	}
	text, err := tomlwrite.Write(root)
	return []byte(text), err
}

// karpenterKubernetes merges settings.kubernetes key by key, in the order
// of Karpenter's model: its values win, labels are merged, taints replaced
// wholesale (even by nothing), other user values kept.
func karpenterKubernetes(genK8s *tomlwrite.Table, userK8s map[string]any) *tomlwrite.Table {
	k8s := tomlwrite.NewTable()
	for _, s := range karpenterKubernetesSettings {
		v, fromGen := genK8s.Get(s.key)
		switch {
		case s.key == "node-labels":
			k8s.Set(s.key, mergedLabels(userK8s[s.key], v))
		case fromGen:
			k8s.Set(s.key, v)
		case s.key == "node-taints":
			// Karpenter's taints replace the user's, even with none.
		default:
			if uv, ok := userK8s[s.key]; ok {
				k8s.Set(s.key, uv)
			}
		}
	}
	return k8s
}

// mergedLabels merges the user's node-labels and Karpenter's (which win),
// sorted by key.
func mergedLabels(user any, gen any) *tomlwrite.Table {
	labels := tomlwrite.NewTable()
	if m, ok := user.(map[string]any); ok {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			labels.Set(k, m[k])
		}
	}
	if g, ok := gen.(*tomlwrite.Table); ok {
		for _, k := range g.Keys() {
			value, _ := g.Get(k)
			labels.Set(k, value)
		}
	}
	sorted := tomlwrite.NewTable()
	for _, k := range slices.Sorted(slices.Values(labels.Keys())) {
		value, _ := labels.Get(k)
		sorted.Set(k, value)
	}
	return sorted
}

// karpenterSettings writes the settings sections: the user's, in order,
// with k8s as settings.kubernetes, and autoscaling.should-wait forced off.
func karpenterSettings(in *injection, settings, k8s *tomlwrite.Table, user map[string]any) {
	userSettings, _ := lookupTable(user, "settings")
	sections := append(slices.Sorted(maps.Keys(userSettings)), "kubernetes")
	slices.Sort(sections)
	for _, name := range slices.Compact(sections) {
		if name == "kubernetes" {
			settings.Set(name, k8s)
			continue
		}
		settings.Set(name, userSettings[name])
	}
	if as, ok := userSettings["autoscaling"].(map[string]any); ok {
		if _, set := as["should-wait"]; set {
			settings.Table("autoscaling").Set("should-wait", false)
			in.notes.add("settings.autoscaling.should-wait: Karpenter sets it to false (its nodes join no Auto Scaling group)")
		}
	}
}

// KarpenterApplied returns the part of a user TOML layer Karpenter passes
// on: settings.kubernetes keys its model lacks and top-level keys other
// than settings are removed.
func KarpenterApplied(tree map[string]any) map[string]any {
	out := map[string]any{}
	if settings, ok := tree["settings"].(map[string]any); ok {
		kept := map[string]any{}
		for name, v := range settings {
			kept[name] = v
		}
		if k8s, ok := settings["kubernetes"].(map[string]any); ok {
			known := map[string]any{}
			for k, v := range k8s {
				if _, ok := KarpenterBottlerocketKind(k); ok {
					known[k] = v
				}
			}
			kept["kubernetes"] = known
		}
		out["settings"] = kept
	}
	return out
}

// lookupTable walks nested tables of a decoded TOML tree.
func lookupTable(tree map[string]any, path ...string) (map[string]any, bool) {
	cur := tree
	for _, key := range path {
		next, ok := cur[key].(map[string]any)
		if !ok {
			return map[string]any{}, false
		}
		cur = next
	}
	return cur, true
}

// deepMerge lays src over dst, table by table.
func deepMerge(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				deepMerge(dm, sm)
				continue
			}
			copied := map[string]any{}
			deepMerge(copied, sm)
			dst[k] = copied
			continue
		}
		dst[k] = v
	}
}

// overlay sets every leaf of src into t (sub-tables created as needed).
func overlay(t *tomlwrite.Table, src map[string]any) {
	for _, k := range slices.Sorted(maps.Keys(src)) {
		if sm, ok := src[k].(map[string]any); ok {
			if v, ok := t.Get(k); ok {
				if _, isTable := v.(*tomlwrite.Table); !isTable {
					t.Set(k, sm)
					continue
				}
			}
			overlay(t.Table(k), sm)
			continue
		}
		t.Set(k, src[k])
	}
}

// writeTree writes a decoded TOML tree in table form, keys sorted.
func writeTree(tree map[string]any, dotted bool) ([]byte, error) {
	root := tomlwrite.NewTable()
	for _, k := range slices.Sorted(maps.Keys(tree)) {
		root.Set(k, tree[k])
	}
	if dotted {
		text, err := tomlwrite.WriteDotted(root, true)
		return []byte(text), err
	}
	text, err := tomlwrite.Write(root)
	return []byte(text), err
}

// bottlerocketPart is the producer's own settings as a layer.
func bottlerocketPart(in *injection, gen *tomlwrite.Table) (Part, error) {
	var text string
	var err error
	if in.producer == ProducerEKS {
		text, err = tomlwrite.WriteDotted(gen, true)
	} else {
		text, err = tomlwrite.Write(gen)
	}
	if err != nil {
		return Part{}, err
	}
	return generatedPart(in.producer, userdata.FormatBottlerocket, "", []byte(text)), nil
}
