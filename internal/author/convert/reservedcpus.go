package convert

import (
	"encoding/json"
	"slices"
)

// reservedCgroupFields are the kubelet config fields that bootstrap.sh
// (--reserved-cpus) and Bottlerocket (reserved-cpus) set to null when
// reserved CPUs are given: the kubelet refuses reservedSystemCPUs together
// with reserved cgroups.
var reservedCgroupFields = []string{"kubeReservedCgroup", "systemReservedCgroup"}

// unsetByReservedCPUs reports whether config[key] is a reserved cgroup set
// to null while reservedSystemCPUs is set: the target's reserved CPUs
// option unsets it already, so it needs no setting of its own.
func unsetByReservedCPUs(config map[string]json.RawMessage, key string) bool {
	if !slices.Contains(reservedCgroupFields, key) || !isJSONNull(config[key]) {
		return false
	}
	cpus, ok := config["reservedSystemCPUs"]
	return ok && !isJSONNull(cpus)
}

// isJSONNull reports whether raw is the JSON null literal.
func isJSONNull(raw json.RawMessage) bool {
	return string(raw) == "null"
}
