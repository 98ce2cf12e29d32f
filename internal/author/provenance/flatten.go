package provenance

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
)

// Keys of the settings that have their own rules.
const (
	KeyTaints      = "taints"
	labelKeyPrefix = "labels["
)

// assignment is one part's value for one setting.
type assignment struct {
	key   string
	value string
	// flag marks values given as kubelet flags, which beat config fields.
	flag bool
	// path is the hub field path the value came from (for its position).
	path string
}

// flatten lists every setting spec assigns.
func flatten(spec hub.Spec) []assignment {
	var out []assignment
	add := func(key, value, path string) { out = append(out, assignment{key: key, value: value, path: path}) }
	c := spec.Cluster
	scalar := func(key, value string) {
		if value != "" {
			add("cluster."+key, value, "spec.cluster."+key)
		}
	}
	scalar("name", c.Name)
	scalar("apiServerEndpoint", c.APIServerEndpoint)
	if len(c.CertificateAuthority) > 0 {
		add("cluster.certificateAuthority", abbreviate(base64.StdEncoding.EncodeToString(c.CertificateAuthority)), "spec.cluster.certificateAuthority")
	}
	scalar("cidr", c.CIDR)
	scalar("ipFamily", c.IPFamily)
	scalar("id", c.ID)
	if c.EnableOutpost != nil {
		add("cluster.enableOutpost", strconv.FormatBool(*c.EnableOutpost), "spec.cluster.enableOutpost")
	}
	out = append(out, kubeletConfig(spec.Kubelet.Config)...)
	for i, f := range spec.Kubelet.Flags {
		out = append(out, kubeletFlag(f, fmt.Sprintf("spec.kubelet.flags[%d]", i))...)
	}
	if e := spec.Kubelet.MaxPodsExpression; e != "" {
		add("kubelet.maxPodsExpression", e, "spec.kubelet.maxPodsExpression")
	}
	out = append(out, containerd(spec.Containerd)...)
	out = append(out, instance(spec.Instance)...)
	for _, g := range slices.Sorted(maps.Keys(spec.FeatureGates)) {
		add("featureGates["+g+"]", strconv.FormatBool(spec.FeatureGates[g]), "spec.featureGates["+g+"]")
	}
	out = append(out, identity(spec.Identity)...)
	out = append(out, maxPodsPolicy(spec.MaxPods)...)
	return out
}

// kubeletConfig flattens kubelet.config to its leaves (objects are merged
// key by key); registerWithTaints is the taint list.
func kubeletConfig(config map[string]json.RawMessage) []assignment {
	var out []assignment
	for _, key := range slices.Sorted(maps.Keys(config)) {
		path := "spec.kubelet.config[" + key + "]"
		if key == "registerWithTaints" {
			out = append(out, assignment{key: KeyTaints, value: taintsOfConfig(config[key]), path: path})
			continue
		}
		var v any
		if err := json.Unmarshal(config[key], &v); err != nil {
			out = append(out, assignment{key: "kubelet." + key, value: string(config[key]), path: path})
			continue
		}
		out = append(out, leaves("kubelet."+key, path, v)...)
	}
	return out
}

// leaves lists the leaves of a JSON value; keys of nested objects are
// added in brackets to both key and path.
func leaves(key, path string, v any) []assignment {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return []assignment{{key: key, value: valueText(v), path: path}}
	}
	var out []assignment
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, leaves(key+"["+k+"]", path+"["+k+"]", m[k])...)
	}
	return out
}

// valueText renders a JSON value for people: strings bare, the rest JSON.
func valueText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// taintsOfConfig renders registerWithTaints as --register-with-taints does.
func taintsOfConfig(raw json.RawMessage) string {
	var ts []struct{ Key, Value, Effect string }
	if json.Unmarshal(raw, &ts) != nil {
		return string(raw)
	}
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.Key
		if t.Value != "" {
			parts[i] += "=" + t.Value
		}
		parts[i] += ":" + t.Effect
	}
	return strings.Join(parts, ",")
}

// kubeletFlag maps one flag to the settings it sets: each node label, the
// taint list, the config field a flag stands for, or the flag itself. The
// flag is read as the kubelet reads it (kubeletflag).
func kubeletFlag(arg, path string) []assignment {
	arg = kubeletflag.Unquote(arg)
	f, ok := kubeletflag.Split(arg)
	if !ok {
		return []assignment{{key: "kubelet.flags " + arg, flag: true, path: path}}
	}
	switch f.Name {
	case "node-labels":
		var out []assignment
		pairs, _ := kubeletflag.SplitPairs(f.Value, "=")
		for _, p := range pairs {
			if p.Key != "" {
				out = append(out, assignment{key: labelKeyPrefix + p.Key + "]", value: p.Value, flag: true, path: path})
			}
		}
		return out
	case "register-with-taints":
		return []assignment{{key: KeyTaints, value: normalizeTaints(f.Value), flag: true, path: path}}
	}
	if form, ok := kubeletflag.FormByFlag(f.Name); ok && f.HasValue {
		return configFlag(form, f.Value, path)
	}
	return []assignment{{key: "kubelet.flags --" + f.Name, value: f.Value, flag: true, path: path}}
}

// configFlag maps a flag that stands for a kubelet config field: a pairs
// flag to one setting per key, any other to the field itself.
func configFlag(form kubeletflag.Form, value, path string) []assignment {
	sep := map[kubeletflag.Kind]string{kubeletflag.KindPairs: "=", kubeletflag.KindThresholds: "<"}[form.Kind]
	if sep == "" {
		return []assignment{{key: "kubelet." + form.Config, value: value, flag: true, path: path}}
	}
	keys, m, err := kubeletflag.Pairs([]string{value}, sep)
	if err != nil {
		return []assignment{{key: "kubelet.flags --" + form.Flag, value: value, flag: true, path: path}}
	}
	slices.Sort(keys)
	out := make([]assignment, 0, len(keys))
	for _, k := range keys {
		out = append(out, assignment{key: "kubelet." + form.Config + "[" + k + "]", value: m[k], flag: true, path: path})
	}
	return out
}

// normalizeTaints writes key=:Effect (Karpenter's spelling of an empty
// value) as key:Effect, so equal taint lists compare equal.
func normalizeTaints(value string) string {
	parts := strings.Split(value, ",")
	for i, p := range parts {
		parts[i] = strings.Replace(p, "=:", ":", 1)
	}
	return strings.Join(parts, ",")
}

// containerd flattens the containerd TOML and the runtime spec to leaves.
func containerd(c hub.Containerd) []assignment {
	var out []assignment
	if c.Config != "" {
		var tree map[string]any
		if err := toml.Unmarshal([]byte(c.Config), &tree); err == nil {
			out = append(out, leaves("containerd.config", "spec.containerd.config", tree)...)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(c.BaseRuntimeSpec)) {
		var v any
		if json.Unmarshal(c.BaseRuntimeSpec[key], &v) == nil {
			p := "spec.containerd.baseRuntimeSpec[" + key + "]"
			out = append(out, leaves("containerd.baseRuntimeSpec["+key+"]", p, v)...)
		}
	}
	return out
}

func instance(in hub.Instance) []assignment {
	var out []assignment
	for _, svc := range slices.Sorted(maps.Keys(in.Environment)) {
		for _, k := range slices.Sorted(maps.Keys(in.Environment[svc])) {
			p := "spec.instance.environment[" + svc + "][" + k + "]"
			out = append(out, assignment{key: "instance.environment[" + svc + "][" + k + "]", value: in.Environment[svc][k], path: p})
		}
	}
	ls := in.LocalStorage
	for key, value := range map[string]string{"strategy": ls.Strategy, "mountPath": ls.MountPath, "disabledMounts": strings.Join(ls.DisabledMounts, ",")} {
		if value != "" {
			out = append(out, assignment{key: "instance.localStorage." + key, value: value, path: "spec.instance.localStorage." + key})
		}
	}
	for key, value := range map[string][]string{"nameservers": in.Network.Nameservers, "domains": in.Network.Domains} {
		if len(value) > 0 {
			out = append(out, assignment{key: "instance.network." + key, value: strings.Join(value, ","), path: "spec.instance.network." + key})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

func identity(id hub.Identity) []assignment {
	var out []assignment
	add := func(key, value string) {
		if value != "" {
			out = append(out, assignment{key: "identity." + key, value: value, path: "spec.identity." + key})
		}
	}
	add("mode", id.Mode)
	add("exec.command", id.Exec.Command)
	add("exec.args", strings.Join(id.Exec.Args, " "))
	for _, k := range slices.Sorted(maps.Keys(id.Exec.Env)) {
		add("exec.env["+k+"]", id.Exec.Env[k])
	}
	if id.BootstrapToken.Token != "" {
		add("bootstrapToken.token", "(set)")
	}
	add("bootstrapToken.caCertHashes", strings.Join(id.BootstrapToken.CACertHashes, ","))
	if id.BootstrapToken.UnsafeSkipCAVerification {
		add("bootstrapToken.unsafeSkipCAVerification", "true")
	}
	return out
}

func maxPodsPolicy(p hub.MaxPodsPolicy) []assignment {
	var out []assignment
	boolean := func(key string, v *bool) {
		if v != nil {
			out = append(out, assignment{key: "maxPods." + key, value: strconv.FormatBool(*v), path: "spec.maxPods." + key})
		}
	}
	boolean("prefixDelegation", p.PrefixDelegation)
	boolean("customNetworking", p.CustomNetworking)
	if p.MaxENIs != 0 {
		out = append(out, assignment{key: "maxPods.maxENIs", value: strconv.Itoa(p.MaxENIs), path: "spec.maxPods.maxENIs"})
	}
	boolean("cap", p.Cap)
	boolean("set", p.Set)
	return out
}

// abbreviate shortens long values (CA bundles) for display.
func abbreviate(s string) string {
	const keep = 24
	if len(s) <= keep+8 {
		return s
	}
	return s[:keep] + fmt.Sprintf("… (%d characters)", len(s))
}
