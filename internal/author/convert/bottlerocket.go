package convert

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/nodeboot/nodeboot/internal/author/tomlwrite"
	"github.com/nodeboot/nodeboot/internal/config/clusterdns"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
	"github.com/nodeboot/nodeboot/internal/config/legacy/bottlerocket"
)

// Bottlerocket writes spec as Bottlerocket TOML settings, the inverse of
// bottlerocket.Decode: cluster fields, identity, kubelet config fields
// with a Bottlerocket setting (bottlerocket.ConfigSettings) and the kubelet
// flags --node-labels, --register-with-taints, --node-ip,
// --hostname-override and --v become [settings.kubernetes] keys; the proxy
// environment and name servers become [settings.network] and
// [settings.dns]. A service CIDR without clusterDNS is written as the
// cluster-dns-ip derived from it. It returns ErrClusterNameRequired when
// spec has no cluster name.
func Bottlerocket(spec hub.Spec) ([]byte, []string, error) {
	if spec.Cluster.Name == "" {
		return nil, nil, ErrClusterNameRequired
	}
	if problem := bottlerocket.ClusterNameProblem(spec.Cluster.Name); problem != "" {
		return nil, nil, fmt.Errorf("%w: spec.cluster.name %q %s", ErrUnrepresentable, spec.Cluster.Name, problem)
	}
	e := brEmitter{k8s: tomlwrite.NewTable(), root: tomlwrite.NewTable()}
	e.cluster(spec.Cluster, spec.Kubelet.Config)
	e.identity(spec.Identity)
	// Reserve the label and taint tables' places so they come first among
	// the sub-tables; empty tables are not written.
	e.k8s.Table("node-labels")
	e.k8s.Table("node-taints")
	e.featureGates(spec.FeatureGates)
	e.kubeletConfig(spec.Kubelet.Config)
	e.kubeletFlags(spec.Kubelet.Flags)
	e.kubeletRest(spec.Kubelet)
	e.instance(spec.Instance)
	e.otherNotes(spec)
	settings := e.root.Table("settings")
	settings.Set("kubernetes", e.k8s)
	if e.network != nil {
		settings.Set("network", e.network)
	}
	if e.dns != nil {
		settings.Set("dns", e.dns)
	}
	text, err := tomlwrite.Write(e.root)
	if err != nil {
		return nil, e.notes, err
	}
	return []byte(text), e.notes, nil
}

// brEmitter builds the settings of one Bottlerocket conversion.
type brEmitter struct {
	root, k8s    *tomlwrite.Table
	network, dns *tomlwrite.Table
	notes        notes
	// fromConfig maps settings keys set from kubelet config to that path,
	// so that a flag overriding one can say so.
	fromConfig map[string]string
}

func (e *brEmitter) cluster(c hub.Cluster, config map[string]json.RawMessage) {
	e.k8s.Set("cluster-name", c.Name)
	if c.APIServerEndpoint != "" {
		e.k8s.Set("api-server", c.APIServerEndpoint)
	}
	if len(c.CertificateAuthority) > 0 {
		e.k8s.Set("cluster-certificate", base64.StdEncoding.EncodeToString(c.CertificateAuthority))
	}
	if c.CIDR != "" {
		e.serviceCIDR(c.CIDR, config)
	}
	if c.IPFamily != "" && !dnsMatchesFamily(config, c.IPFamily) {
		e.notes.add("spec.cluster.ipFamily", "Bottlerocket takes the IP family from cluster-dns-ip; set kubelet clusterDNS to a %s address", c.IPFamily)
	}
	if c.EnableOutpost != nil && *c.EnableOutpost {
		e.notes.add("spec.cluster.enableOutpost", "Bottlerocket has no setting for local clusters on Outposts")
	}
	if c.ID != "" {
		e.notes.add("spec.cluster.id", "Bottlerocket has no cluster ID setting")
	}
}

// serviceCIDR writes the cluster DNS address derived from the service CIDR
// when kubelet clusterDNS does not give one.
func (e *brEmitter) serviceCIDR(cidr string, config map[string]json.RawMessage) {
	if _, ok := config["clusterDNS"]; ok {
		e.notes.add("spec.cluster.cidr", "Bottlerocket has no service CIDR setting; cluster-dns-ip comes from kubelet clusterDNS")
		return
	}
	dns, err := clusterdns.Address(cidr, nil)
	if err != nil {
		e.notes.add("spec.cluster.cidr", "Bottlerocket has no service CIDR setting, and no cluster DNS address can be derived from it: %v", err)
		return
	}
	e.k8s.Set("cluster-dns-ip", dns)
	e.notes.add("spec.cluster.cidr", "Bottlerocket has no service CIDR setting; written as cluster-dns-ip = %q, derived from it", dns)
}

// dnsMatchesFamily reports whether the first clusterDNS address has family.
func dnsMatchesFamily(config map[string]json.RawMessage, family string) bool {
	var ips []string
	if json.Unmarshal(config["clusterDNS"], &ips) != nil || len(ips) == 0 {
		return false
	}
	isV6 := strings.Contains(ips[0], ":")
	return isV6 == (family == "ipv6")
}

func (e *brEmitter) identity(id hub.Identity) {
	switch id.Mode {
	case hub.IdentityBootstrapToken:
		e.k8s.Set("authentication-mode", "tls")
		if id.BootstrapToken.Token != "" {
			e.k8s.Set("bootstrap-token", id.BootstrapToken.Token)
		}
	case hub.IdentityExecCredential:
		e.k8s.Set("authentication-mode", "aws")
	}
	if len(id.BootstrapToken.CACertHashes) > 0 || id.BootstrapToken.UnsafeSkipCAVerification {
		e.notes.add("spec.identity.bootstrapToken", "Bottlerocket cannot read the CA from cluster-info; it needs cluster-certificate")
	}
	if id.Mode != hub.IdentityBootstrapToken && id.BootstrapToken.Token != "" {
		e.notes.add("spec.identity.bootstrapToken.token", "is only used with mode BootstrapToken")
	}
	if !reflect.ValueOf(id.Exec).IsZero() {
		e.notes.add("spec.identity.exec", "Bottlerocket always uses its own IAM authenticator command")
	}
}

func (e *brEmitter) featureGates(gates map[string]bool) {
	for _, gate := range sortedKeys(gates) {
		switch {
		case gate == bottlerocket.FeatureInstanceIDNodeName && gates[gate]:
			e.k8s.Set("hostname-override-source", "instance-id")
		case gate == bottlerocket.FeatureInstanceIDNodeName:
			e.k8s.Set("hostname-override-source", "private-dns-name")
		case gates[gate]:
			e.notes.add("spec.featureGates["+gate+"]", "Bottlerocket has no equivalent; it behaves as if the gate were off")
		}
	}
}

// kubeletConfig maps each config field to its Bottlerocket setting.
func (e *brEmitter) kubeletConfig(config map[string]json.RawMessage) {
	e.fromConfig = map[string]string{}
	for _, key := range sortedKeys(config) {
		path := "spec.kubelet.config[" + key + "]"
		switch {
		case typeMetaKeys[key], unsetByReservedCPUs(config, key):
		case key == "registerWithTaints":
			e.taintsFromConfig(path, config[key])
			e.fromConfig["node-taints"] = path
		default:
			if setting, ok := e.configSetting(path, key, config[key]); ok {
				e.fromConfig[setting] = path
			}
		}
	}
}

// configSetting writes one kubelet config field and returns the setting
// key; false when it has no Bottlerocket setting (noted).
func (e *brEmitter) configSetting(path, key string, raw json.RawMessage) (string, bool) {
	s, ok := bottlerocket.ConfigSettingFor(key)
	if !ok {
		e.notes.add(path, "Bottlerocket has no setting for this kubelet field (newer releases accept it in settings.kubernetes.kubelet-extra-config)")
		return "", false
	}
	v, err := s.Encode(raw)
	if err != nil {
		e.notes.add(path, "cannot be written as settings.kubernetes.%s: %v", s.Key, err)
		return "", false
	}
	e.k8s.Set(s.Key, v)
	return s.Key, true
}

// taintsFromConfig writes registerWithTaints as node-taints.
func (e *brEmitter) taintsFromConfig(path string, raw json.RawMessage) {
	var taints []kubeletflag.Taint
	if err := json.Unmarshal(raw, &taints); err != nil {
		e.notes.add(path, "is not a list of taints: %v", err)
		return
	}
	e.setTaints(path, taints)
}

// setTaints writes node-taints: key → "value:Effect", or an array of them
// when a key has several (one string is the form every release reads).
// Taints Bottlerocket would reject are noted under path instead.
func (e *brEmitter) setTaints(path string, taints []kubeletflag.Taint) {
	byKey := map[string][]any{}
	for _, t := range taints {
		value := t.Value + ":" + t.Effect
		if problem := bottlerocket.TaintProblem(t.Key, value); problem != "" {
			e.notes.add(path, "Bottlerocket rejects this taint: %s", problem)
			continue
		}
		byKey[t.Key] = append(byKey[t.Key], value)
	}
	table := map[string]any{}
	for key, values := range byKey {
		if len(values) == 1 {
			table[key] = values[0]
		} else {
			table[key] = values
		}
	}
	e.k8s.Set("node-taints", table)
}

// kubeletFlags maps flags to settings; later flags win, as in the kubelet.
func (e *brEmitter) kubeletFlags(flags []string) {
	labels := map[string]any{}
	for i, arg := range flags {
		path := indexPath("spec.kubelet.flags", i)
		f, ok := kubeletflag.Split(arg)
		if !ok || !f.HasValue {
			e.notes.add(path, "Bottlerocket has no setting for kubelet argument %q", arg)
			continue
		}
		if err := e.flag(path, f, labels); err != nil {
			e.notes.add(path, "%v", err)
		}
	}
	if len(labels) > 0 {
		e.k8s.Set("node-labels", labels)
	}
}

// flag writes one kubelet flag as a setting.
func (e *brEmitter) flag(path string, f kubeletflag.Flag, labels map[string]any) error {
	switch f.Name {
	case "node-labels":
		pairs, err := parsePairs(f.Value, "=")
		if err != nil {
			return fmt.Errorf("--node-labels: %w", err)
		}
		for _, k := range sortedKeys(pairs) {
			if problem := bottlerocket.LabelProblem(k, pairs[k]); problem != "" {
				e.notes.add(path, "Bottlerocket rejects this label: %s", problem)
				continue
			}
			labels[k] = pairs[k]
		}
		return nil
	case "register-with-taints":
		taints, err := kubeletflag.ParseTaints(f.Value)
		if err != nil {
			return fmt.Errorf("--register-with-taints: %w", err)
		}
		e.overrides("node-taints", path)
		e.setTaints(path, taints)
		return nil
	case "node-ip":
		if problem := bottlerocket.NodeIPProblem(f.Value); problem != "" {
			return fmt.Errorf("--node-ip %q %s", f.Value, problem)
		}
		e.k8s.Set(f.Name, f.Value)
		return nil
	case "hostname-override":
		if problem := bottlerocket.HostnameProblem(f.Value); problem != "" {
			return fmt.Errorf("--hostname-override %q %s", f.Value, problem)
		}
		e.k8s.Set(f.Name, f.Value)
		return nil
	case "v":
		n, err := parseUint8(f.Value)
		if err != nil {
			return fmt.Errorf("--v: %w", err)
		}
		e.k8s.Set("log-level", n)
		return nil
	}
	return e.configFlag(path, f)
}

// configFlag writes a flag that stands for a kubelet config field.
func (e *brEmitter) configFlag(path string, f kubeletflag.Flag) error {
	form, ok := kubeletflag.FormByFlag(f.Name)
	if !ok {
		return fmt.Errorf("Bottlerocket has no setting for kubelet flag --%s", f.Name)
	}
	s, ok := bottlerocket.ConfigSettingFor(form.Config)
	if !ok {
		return fmt.Errorf("Bottlerocket has no setting for kubelet flag --%s (%s)", f.Name, form.Config)
	}
	raw, err := kubeletflag.ConfigValue(form, f.Value)
	if err != nil {
		return fmt.Errorf("--%s: %w", f.Name, err)
	}
	v, err := s.Encode(raw)
	if err != nil && form.Kind == kubeletflag.KindScalar {
		v, err = s.Encode(kubeletflag.StringJSON(f.Value))
	}
	if err != nil {
		return fmt.Errorf("--%s cannot be written as settings.kubernetes.%s: %w", f.Name, s.Key, err)
	}
	e.overrides(s.Key, path)
	e.k8s.Set(s.Key, v)
	return nil
}

// overrides notes a config field replaced by a later flag.
func (e *brEmitter) overrides(setting, flagPath string) {
	if configPath, ok := e.fromConfig[setting]; ok {
		e.notes.add(configPath, "overridden by %s, as the kubelet would", flagPath)
		delete(e.fromConfig, setting)
	}
}

func (e *brEmitter) kubeletRest(k hub.Kubelet) {
	if k.MaxPodsExpression != "" {
		e.notes.add("spec.kubelet.maxPodsExpression", "Bottlerocket cannot evaluate a max pods expression; set spec.kubelet.config maxPods instead")
	}
}
