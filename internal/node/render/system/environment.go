package system

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/systemdsyntax"
	"github.com/nodeboot/nodeboot/internal/lazyregexp"
	"github.com/nodeboot/nodeboot/internal/node/render"
)

const (
	// DefaultEnvironmentKey is the instance.environment key whose variables
	// go to every service (systemd DefaultEnvironment=).
	DefaultEnvironmentKey = "default"
	// ManagerEnvironmentPath holds the DefaultEnvironment= lines.
	ManagerEnvironmentPath = "/etc/systemd/system.conf.d/environment.conf"
)

// serviceNamePattern is a unit name prefix: systemd's unit name characters,
// which rules out "/" and so keeps the drop-in inside /etc/systemd/system.
var serviceNamePattern = lazyregexp.New(`^[A-Za-z0-9:_.@\\-]+$`)

// ServiceNameValid reports whether an instance.environment key can name a
// service drop-in. Render skips keys for which it is false; validation
// should report them.
func ServiceNameValid(name string) bool {
	unit := strings.TrimSuffix(name, ".service")
	return unit != "" && unit != "." && unit != ".." && serviceNamePattern.MatchString(unit)
}

// ServiceDropInPath is where the environment of one service goes. The key
// may be given with or without the ".service" suffix.
func ServiceDropInPath(service string) string {
	return fmt.Sprintf("/etc/systemd/system/%s.service.d/environment.conf", strings.TrimSuffix(service, ".service"))
}

// environmentFiles writes the "default" variables as manager-wide
// DefaultEnvironment= lines and every other key's variables as an
// Environment= drop-in of that service. Services come in sorted order and
// variables in sorted order within a file; empty maps write nothing.
func environmentFiles(environment map[string]map[string]string) []render.File {
	var files []render.File
	if variables := environment[DefaultEnvironmentKey]; len(variables) > 0 {
		files = append(files, render.File{
			Path: ManagerEnvironmentPath,
			Mode: fileMode,
			Data: assignments("Manager", "DefaultEnvironment", variables),
		})
	}
	byUnit := serviceVariables(environment)
	for _, unit := range sortedKeys(byUnit) {
		files = append(files, render.File{
			Path: ServiceDropInPath(unit),
			Mode: fileMode,
			Data: assignments("Service", "Environment", byUnit[unit]),
		})
	}
	return files
}

// serviceVariables groups the non-default keys by unit, so "kubelet" and
// "kubelet.service" share one drop-in (the suffixed key wins a conflict,
// being later in sorted order). Invalid names and empty maps are dropped.
func serviceVariables(environment map[string]map[string]string) map[string]map[string]string {
	byUnit := map[string]map[string]string{}
	for _, service := range sortedKeys(environment) {
		variables := environment[service]
		if service == DefaultEnvironmentKey || len(variables) == 0 || !ServiceNameValid(service) {
			continue
		}
		unit := strings.TrimSuffix(service, ".service")
		if byUnit[unit] == nil {
			byUnit[unit] = make(map[string]string, len(variables))
		}
		for key, value := range variables {
			byUnit[unit][key] = value
		}
	}
	return byUnit
}

// assignments renders one section of `Directive="KEY=VALUE"` lines.
func assignments(section, directive string, variables map[string]string) []byte {
	var b strings.Builder
	b.WriteString("[" + section + "]\n")
	for _, key := range sortedKeys(variables) {
		b.WriteString(directive + `="` + systemdsyntax.QuoteValue(key) + "=" + systemdsyntax.QuoteValue(variables[key]) + "\"\n")
	}
	return []byte(b.String())
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}
