package convert

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/nodeboot/nodeboot/internal/author/tomlwrite"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/legacy/bottlerocket"
)

// instance maps the proxy variables and name resolution.
func (e *brEmitter) instance(in hub.Instance) {
	for _, service := range sortedKeys(in.Environment) {
		for _, name := range sortedKeys(in.Environment[service]) {
			e.environment(service, name, in.Environment[service][name])
		}
	}
	if len(in.Network.Nameservers) > 0 || len(in.Network.Domains) > 0 {
		e.dns = tomlwrite.NewTable()
		if len(in.Network.Nameservers) > 0 {
			e.dns.Set("name-servers", stringsAny(in.Network.Nameservers))
		}
		if len(in.Network.Domains) > 0 {
			e.dns.Set("search-list", stringsAny(in.Network.Domains))
		}
	}
	if !reflect.ValueOf(in.LocalStorage).IsZero() {
		e.notes.add("spec.instance.localStorage", "Bottlerocket sets up instance storage with bootstrap commands (apiclient ephemeral-storage), which nodeboot does not write")
	}
}

// environment writes HTTPS_PROXY and NO_PROXY of the default environment.
func (e *brEmitter) environment(service, name, value string) {
	path := "spec.instance.environment[" + service + "][" + name + "]"
	if service != bottlerocket.EnvironmentDefault {
		e.notes.add(path, "Bottlerocket has no per-service environment setting")
		return
	}
	if e.network == nil {
		e.network = tomlwrite.NewTable()
	}
	switch name {
	case bottlerocket.EnvHTTPSProxy:
		e.network.Set("https-proxy", value)
	case bottlerocket.EnvNoProxy:
		e.network.Set("no-proxy", stringsAny(splitList(value)))
	default:
		e.notes.add(path, "Bottlerocket only sets the proxy variables (settings.network.https-proxy, no-proxy)")
	}
}

func (e *brEmitter) otherNotes(spec hub.Spec) {
	if spec.Containerd.Config != "" {
		e.notes.add("spec.containerd.config", "Bottlerocket takes containerd options as typed settings (settings.container-runtime, settings.container-registry), not a TOML fragment")
	}
	if len(spec.Containerd.BaseRuntimeSpec) > 0 {
		e.notes.add("spec.containerd.baseRuntimeSpec", "Bottlerocket takes OCI defaults as typed settings (settings.oci-defaults), not a runtime spec")
	}
	maxPodsPolicyNotes(spec.MaxPods, "Bottlerocket reads max pods from its eni-max-pods table", &e.notes)
	if spec.MaxPods.Set != nil && !*spec.MaxPods.Set {
		e.notes.add("spec.maxPods.set", "Bottlerocket always sets max pods when its table knows the instance type")
	}
}

// stringsAny converts for the TOML writer.
func stringsAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// parseUint8 reads a log level.
func parseUint8(s string) (int64, error) {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 8)
	return int64(n), err
}
