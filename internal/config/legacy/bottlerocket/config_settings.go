package bottlerocket

import (
	"encoding/json"
	"math"
	"net/url"
	"sync"

	"github.com/nodeboot/nodeboot/internal/k8sapi/validation"
)

// ConfigSetting is a settings.kubernetes key that holds exactly one
// KubeletConfiguration field. Decode turns the setting into
// spec.kubelet.config[Config]; Encode turns the kubelet value back.
type ConfigSetting struct {
	// Key is the settings.kubernetes key, e.g. "max-pods".
	Key string
	// Config is the KubeletConfiguration field, e.g. "maxPods".
	Config string
	codec  codec
}

// Encode converts a kubelet config value (JSON, as in spec.kubelet.config)
// into the setting's TOML value: a string, int64, float64, bool, []any or
// map[string]any (a sub-table, whose values are of the same kinds). It
// returns an error wrapping ErrUnexpressible when the value has no
// Bottlerocket form (a value Bottlerocket would reject, an option it lacks).
func (s ConfigSetting) Encode(raw json.RawMessage) (any, error) {
	return s.codec.encode(raw)
}

// ConfigSettings returns every setting that maps to one kubelet config
// field, in the order emitters should write them.
func ConfigSettings() []ConfigSetting { return configSettings() }

// ConfigSettingFor returns the setting holding the kubelet config field
// key, e.g. "maxPods" → max-pods.
func ConfigSettingFor(key string) (ConfigSetting, bool) {
	s, ok := configByField()[key]
	return s, ok
}

const maxInt32 = math.MaxInt32

var configSettings = sync.OnceValue(func() []ConfigSetting {
	count := intCodec{0, maxInt32}
	duration := stringCodec{check: durationProblem}
	quantity := stringCodec{check: quantityProblem}
	reserved := stringMapCodec{keys: reservedResources, what: "resource", check: quantityProblem}
	threshold := stringMapCodec{keys: evictionSignals, what: "eviction signal", check: thresholdProblem}
	grace := stringMapCodec{keys: evictionSignals, what: "eviction signal", check: durationProblem}
	return []ConfigSetting{
		{"max-pods", "maxPods", count},
		{"cluster-dns-ip", "clusterDNS", dnsIPsCodec{}},
		{"cluster-domain", "clusterDomain", stringCodec{check: domainProblem}},
		{"kube-reserved", "kubeReserved", reserved},
		{"system-reserved", "systemReserved", reserved},
		{"eviction-hard", "evictionHard", threshold},
		{"eviction-soft", "evictionSoft", threshold},
		{"eviction-soft-grace-period", "evictionSoftGracePeriod", grace},
		{"eviction-max-pod-grace-period", "evictionMaxPodGracePeriod", count},
		{"allowed-unsafe-sysctls", "allowedUnsafeSysctls", stringListCodec{}},
		{"server-tls-bootstrap", "serverTLSBootstrap", boolCodec{}},
		{"registry-qps", "registryPullQPS", count},
		{"registry-burst", "registryBurst", count},
		{"event-qps", "eventRecordQPS", count},
		{"event-burst", "eventBurst", count},
		{"kube-api-qps", "kubeAPIQPS", count},
		{"kube-api-burst", "kubeAPIBurst", count},
		{"container-log-max-size", "containerLogMaxSize", quantity},
		{"container-log-max-files", "containerLogMaxFiles", count},
		{"container-log-max-workers", "containerLogMaxWorkers", intCodec{1, maxInt32}},
		{"container-log-monitor-interval", "containerLogMonitorInterval", duration},
		{"cpu-cfs-quota-enforced", "cpuCFSQuota", boolCodec{}},
		{"cpu-manager-policy", "cpuManagerPolicy", enumCodec{[]string{"none", "static"}}},
		{"cpu-manager-policy-options", "cpuManagerPolicyOptions", cpuOptionsCodec{}},
		{"cpu-manager-reconcile-period", "cpuManagerReconcilePeriod", duration},
		{"topology-manager-scope", "topologyManagerScope", enumCodec{[]string{"container", "pod"}}},
		{"topology-manager-policy", "topologyManagerPolicy", enumCodec{[]string{"none", "restricted", "best-effort", "single-numa-node"}}},
		{"topology-manager-policy-options", "topologyManagerPolicyOptions", topologyOptionsCodec{}},
		{"pod-pids-limit", "podPidsLimit", intCodec{-1, math.MaxInt64}},
		{"image-gc-high-threshold-percent", "imageGCHighThresholdPercent", percentCodec{}},
		{"image-gc-low-threshold-percent", "imageGCLowThresholdPercent", percentCodec{}},
		{"image-minimum-gc-age", "imageMinimumGCAge", duration},
		{"image-maximum-gc-age", "imageMaximumGCAge", duration},
		{"provider-id", "providerID", stringCodec{check: urlProblem}},
		{"shutdown-grace-period", "shutdownGracePeriod", duration},
		{"shutdown-grace-period-for-critical-pods", "shutdownGracePeriodCriticalPods", duration},
		{"memory-manager-policy", "memoryManagerPolicy", enumCodec{[]string{"None", "Static"}}},
		{"memory-manager-reserved-memory", "reservedMemory", reservedMemoryCodec{}},
		{"reserved-cpus", "reservedSystemCPUs", stringCodec{check: cpusetProblem}},
		{"seccomp-default", "seccompDefault", boolCodec{}},
		// Bottlerocket's values are taken to be the kubelet's (NoSwap,
		// LimitedSwap); matched without regard to case.
		{"memory-swap-behavior", "memorySwap", wrapCodec{"swapBehavior", enumCodec{[]string{"NoSwap", "LimitedSwap"}}}},
		{"single-process-oom-kill", "singleProcessOOMKill", boolCodec{}},
		{"ids-per-pod", "userNamespaces", wrapCodec{"idsPerPod", intCodec{65536, 1<<32 - 1}}},
		{"max-parallel-image-pulls", "maxParallelImagePulls", intCodec{1, maxInt32}},
		{"container-runtime-endpoint", "containerRuntimeEndpoint", stringCodec{check: urlProblem}},
		{"memory-throttling-factor", "memoryThrottlingFactor", floatCodec{0, 1}},
		{"fail-cgroup-v1", "failCgroupV1", boolCodec{}},
	}
})

var configByField = sync.OnceValue(func() map[string]ConfigSetting {
	out := map[string]ConfigSetting{}
	for _, s := range configSettings() {
		out[s.Config] = s
	}
	return out
})

// domainProblem checks a DNS domain such as cluster.local.
func domainProblem(s string) string {
	if errs := validation.IsDNS1123Subdomain(s); len(errs) > 0 {
		return "is not a DNS domain: " + errs[0]
	}
	return ""
}

// urlProblem checks an absolute URL such as aws:///us-west-2a/i-0123.
func urlProblem(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return "is not an absolute URL (scheme://…)"
	}
	return ""
}
