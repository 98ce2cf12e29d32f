package maxpods

import "strconv"

// Memory reservation constants (AL2 bootstrap.sh, nodeadm).
const (
	memoryBaseMiB   = 255
	memoryPerPodMiB = 11
	// memoryCeilingDivisor limits the reservation to 1/4 of node memory.
	memoryCeilingDivisor = 4
)

// ephemeralStorageReserved is the fixed ephemeral-storage reservation.
const ephemeralStorageReserved = "1Gi"

// cpuBand reserves pctX100/100 percent of the millicores in [from, to).
type cpuBand struct {
	from, to, pctX100 int64
}

// cpuBands are the kubeReserved CPU tiers: 6 %, 1 %, 0.5 %, 0.25 %.
var cpuBands = [...]cpuBand{
	{from: 0, to: 1000, pctX100: 600},
	{from: 1000, to: 2000, pctX100: 100},
	{from: 2000, to: 4000, pctX100: 50},
	{from: 4000, to: 1 << 62, pctX100: 25},
}

// maxCPUs bounds the vCPU count so the arithmetic cannot overflow.
const maxCPUs = 1 << 30

// KubeReservedCPU returns the kubeReserved CPU in millicores for a vCPU
// count (2 → 70, 96 → 310); 0 for cpus ≤ 0.
func KubeReservedCPU(cpus int) int64 {
	total := int64(min(max(cpus, 0), maxCPUs)) * 1000
	var milli int64
	for _, b := range cpuBands {
		if total <= b.from {
			break
		}
		milli += (min(total, b.to) - b.from) * b.pctX100 / 100 / 100
	}
	return milli
}

// KubeReservedMemoryMiB returns the kubeReserved memory in MiB,
// 11 × maxPods + 255, and whether the ceiling
// max(nodeMemoryMiB / 4, 11 × min(maxPods, 110) + 255) lowered it. The
// ceiling applies only when nodeMemoryMiB > 0; negative maxPods counts as 0.
func KubeReservedMemoryMiB(maxPods int32, nodeMemoryMiB int64) (mib int64, capped bool) {
	pods := max(int64(maxPods), 0)
	mib = memoryBaseMiB + memoryPerPodMiB*pods
	if nodeMemoryMiB <= 0 {
		return mib, false
	}
	ceiling := max(nodeMemoryMiB/memoryCeilingDivisor, memoryBaseMiB+memoryPerPodMiB*min(pods, DefaultMaxPods))
	if mib > ceiling {
		return ceiling, true
	}
	return mib, false
}

// Reserved is a kubeReserved setting as kubelet quantities.
type Reserved struct {
	CPU              string // e.g. "70m"
	Memory           string // e.g. "574Mi"
	EphemeralStorage string // always "1Gi"
}

// KubeReserved returns the kubeReserved quantities for a node with cpus
// vCPUs, nodeMemoryMiB of memory (0 when unknown: no ceiling) and the
// effective maxPods.
func KubeReserved(cpus int, nodeMemoryMiB int64, maxPods int32) Reserved {
	mib, _ := KubeReservedMemoryMiB(maxPods, nodeMemoryMiB)
	return Reserved{
		CPU:              strconv.FormatInt(KubeReservedCPU(cpus), 10) + "m",
		Memory:           strconv.FormatInt(mib, 10) + "Mi",
		EphemeralStorage: ephemeralStorageReserved,
	}
}

// Map returns r keyed by resource name, as KubeletConfiguration.kubeReserved
// wants it.
func (r Reserved) Map() map[string]string {
	return map[string]string{
		"cpu":               r.CPU,
		"memory":            r.Memory,
		"ephemeral-storage": r.EphemeralStorage,
	}
}
