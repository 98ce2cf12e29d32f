package bottlerocket

import (
	"fmt"
	"net/netip"
	"strings"
)

// sectionReasons says why a settings section is not applied.
var sectionReasons = map[string]string{
	"host-containers":      "host containers are a Bottlerocket feature; nodeboot runs on a general-purpose OS",
	"bootstrap-containers": "bootstrap containers are a Bottlerocket feature; run such steps from a shell script part",
	"bootstrap-commands":   "bootstrap commands are a Bottlerocket feature; run such steps from a shell script part",
	"ntp":                  "time synchronisation is configured by the host image",
	"kernel":               "kernel settings (sysctls, modules, lockdown) are configured by the host image",
	"aws":                  "nodeboot reads the region and profile from the instance metadata",
	"container-registry":   "registry mirrors and credentials belong in spec.containerd.config of a NodeConfig",
	"container-runtime":    "containerd options belong in spec.containerd.config of a NodeConfig",
	"oci-defaults":         "OCI defaults belong in spec.containerd.baseRuntimeSpec of a NodeConfig",
}

// sectionReason says why settings.<name> is not applied.
func sectionReason(name string) string {
	if why, ok := sectionReasons[name]; ok {
		return why
	}
	return "it is a Bottlerocket-specific setting"
}

// Environment variables the network proxy settings become.
const (
	EnvHTTPSProxy = "HTTPS_PROXY"
	EnvNoProxy    = "NO_PROXY"
	// EnvironmentDefault is the spec.instance.environment key for
	// system-wide variables.
	EnvironmentDefault = "default"
)

// network maps https-proxy and no-proxy to system-wide environment
// variables; other network settings are not applied.
func (d *decoder) network(p keyPath, v any) {
	table, ok := d.table(p, v)
	if !ok {
		return
	}
	for _, key := range d.orderedKeys(p, table) {
		kp := p.child(key)
		switch key {
		case "https-proxy":
			if s, ok := d.str(kp, table[key]); ok {
				d.setEnv(EnvHTTPSProxy, s, kp)
			}
		case "no-proxy":
			if list, ok := d.stringList(kp, table[key]); ok {
				d.setEnv(EnvNoProxy, strings.Join(list, ","), kp)
			}
		default:
			d.ignore(kp, table[key], "network settings other than https-proxy and no-proxy are configured by the host image")
		}
	}
}

// setEnv sets a system-wide environment variable.
func (d *decoder) setEnv(name, value string, p keyPath) {
	env := &d.spec.Instance.Environment
	if *env == nil {
		*env = map[string]map[string]string{}
	}
	if (*env)[EnvironmentDefault] == nil {
		(*env)[EnvironmentDefault] = map[string]string{}
	}
	(*env)[EnvironmentDefault][name] = value
	d.record(fmt.Sprintf("spec.instance.environment[%s][%s]", EnvironmentDefault, name), p)
}

// dns maps name-servers and search-list to spec.instance.network.
func (d *decoder) dns(p keyPath, v any) {
	table, ok := d.table(p, v)
	if !ok {
		return
	}
	for _, key := range d.orderedKeys(p, table) {
		kp := p.child(key)
		switch key {
		case "name-servers":
			if list, ok := d.nameServers(kp, table[key]); ok {
				d.spec.Instance.Network.Nameservers = list
				d.record("spec.instance.network.nameservers", kp)
			}
		case "search-list":
			if list, ok := d.stringList(kp, table[key]); ok {
				d.spec.Instance.Network.Domains = list
				d.record("spec.instance.network.domains", kp)
			}
		default:
			d.ignore(kp, table[key], "DNS settings other than name-servers and search-list are configured by the host image")
		}
	}
}

// nameServers reads an array of IP addresses.
func (d *decoder) nameServers(p keyPath, v any) ([]string, bool) {
	list, ok := d.stringList(p, v)
	if !ok {
		return nil, false
	}
	for i, s := range list {
		if _, err := netip.ParseAddr(s); err != nil {
			d.itemErrorf(p, i, "%q is not an IP address", clip(s))
			return nil, false
		}
	}
	return list, true
}
