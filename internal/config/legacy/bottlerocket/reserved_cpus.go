package bottlerocket

// keyReservedCPUs is the settings.kubernetes key for reservedSystemCPUs.
const keyReservedCPUs = "reserved-cpus"

// reservedCgroupFields are the kubelet config fields reserved-cpus unsets:
// the kubelet refuses to start when reservedSystemCPUs is combined with
// kubeReservedCgroup or systemReservedCgroup.
var reservedCgroupFields = []string{"kubeReservedCgroup", "systemReservedCgroup"}

// reservedCPUs applies reserved-cpus and, when it was accepted, sets the
// reserved cgroups to JSON null (unset), as bootstrap.sh does for
// --reserved-cpus; nodeboot's base kubelet config sets both otherwise.
func (d *decoder) reservedCPUs(p keyPath, v any) {
	s, _ := ConfigSettingFor("reservedSystemCPUs")
	s.apply(d, p, v)
	if from, ok := d.configFrom["reservedSystemCPUs"]; !ok || from.id() != p.id() {
		return
	}
	for _, field := range reservedCgroupFields {
		d.setConfig(field, nil, p, nil)
	}
}
