package bottlerocket

import (
	"encoding/json"
	"net/netip"
	"slices"
	"sync"
)

// handler applies one settings.kubernetes key.
type handler func(d *decoder, p keyPath, v any)

// Reasons for settings.kubernetes keys that are read but not applied.
var ignoredKubernetesKeys = map[string]string{
	"static-pods":                            "nodeboot does not write static pod manifests; deliver them with a shell script part",
	"static-pods-enabled":                    "nodeboot does not write static pod manifests",
	"credential-providers":                   "nodeboot installs the ECR credential provider itself",
	"server-certificate":                     "nodeboot uses kubelet serving certificates from TLS bootstrapping (serverTLSBootstrap)",
	"server-key":                             "nodeboot uses kubelet serving certificates from TLS bootstrapping (serverTLSBootstrap)",
	"pod-infra-container-image":              "it has had no effect since Bottlerocket 1.21.0; nodeboot picks the pause image",
	"device-ownership-from-security-context": "it is a containerd CRI option; set it in spec.containerd.config of a NodeConfig",
	"memory-reservation-policy":              "the kubelet version nodeboot targets has no such option",
}

// kubernetesHandlers maps every settings.kubernetes key to its handler.
var kubernetesHandlers = sync.OnceValue(func() map[string]handler {
	h := map[string]handler{
		"cluster-name":             (*decoder).clusterName,
		"api-server":               (*decoder).apiServer,
		"cluster-certificate":      (*decoder).clusterCertificate,
		"authentication-mode":      (*decoder).authenticationMode,
		"bootstrap-token":          (*decoder).bootstrapToken,
		"standalone-mode":          (*decoder).standaloneMode,
		"cloud-provider":           (*decoder).cloudProvider,
		"node-labels":              (*decoder).nodeLabels,
		"node-taints":              (*decoder).nodeTaints,
		"node-ip":                  (*decoder).nodeIP,
		"hostname-override":        (*decoder).hostnameOverride,
		"hostname-override-source": (*decoder).hostnameOverrideSource,
		"log-level":                (*decoder).logLevel,
		"kubelet-extra-config":     (*decoder).kubeletExtraConfig,
	}
	for _, s := range configSettings() {
		h[s.Key] = s.apply
	}
	h[keyReservedCPUs] = (*decoder).reservedCPUs
	for key, why := range ignoredKubernetesKeys {
		h[key] = func(d *decoder, p keyPath, v any) { d.ignore(p, v, why) }
	}
	return h
})

// knownKubernetesKeys lists every settings.kubernetes key, sorted.
var knownKubernetesKeys = sync.OnceValue(func() []string {
	keys := sortedKeys(kubernetesHandlers())
	return keys
})

// apply decodes a kubelet config setting into spec.kubelet.config.
func (s ConfigSetting) apply(d *decoder, p keyPath, v any) {
	if out, ok := s.codec.decode(d, p, v); ok {
		d.setConfig(s.Config, out, p, v)
	}
}

// kubernetes walks settings.kubernetes. Flags are added in a fixed order
// (labels, taints, node IP, hostname, verbosity) whatever the order of the
// settings, and kubelet-extra-config comes last so that its clashes with
// typed settings are reported on its own line.
func (d *decoder) kubernetes(p keyPath, v any) {
	table, ok := d.table(p, v)
	if !ok {
		return
	}
	d.siblings = table
	handlers := kubernetesHandlers()
	keys := d.orderedKeys(p, table)
	last := []string{"kubelet-extra-config"}
	for _, key := range keys {
		if slices.Contains(last, key) {
			continue
		}
		h, known := handlers[key]
		if !known {
			d.unknownKey(p.child(key), "setting", knownKubernetesKeys())
			continue
		}
		h(d, p.child(key), table[key])
	}
	for _, key := range last {
		if v, ok := table[key]; ok {
			handlers[key](d, p.child(key), v)
		}
	}
	d.flushFlags()
	d.inferIPFamily()
	if _, ok := table["cluster-name"]; !ok {
		d.errorf(p, "cluster-name is required: add cluster-name = \"<EKS cluster name>\" to [settings.kubernetes]")
	}
}

// inferIPFamily marks the cluster IPv6 when the (first) cluster DNS IP is
// IPv6, which is how Bottlerocket picks the node IP's family.
func (d *decoder) inferIPFamily() {
	raw, ok := d.spec.Kubelet.Config["clusterDNS"]
	if !ok {
		return
	}
	var ips []string
	if json.Unmarshal(raw, &ips) != nil || len(ips) == 0 {
		return
	}
	if addr, err := netip.ParseAddr(ips[0]); err == nil && addr.Is6() && !addr.Is4In6() {
		d.spec.Cluster.IPFamily = ipFamilyIPv6
		d.record("spec.cluster.ipFamily", d.configFrom["clusterDNS"])
	}
}

// ipFamilyIPv6 is spec.cluster.ipFamily for IPv6 clusters.
const ipFamilyIPv6 = "ipv6"
