package kubeletflag

import "slices"

// Kind is the shape of a flag's value.
type Kind int

// Value shapes of the kubelet's config flags.
const (
	KindScalar         Kind = iota // --max-pods=110
	KindList                       // --cluster-dns=a,b
	KindPairs                      // --kube-reserved=cpu=100m,memory=1Gi
	KindThresholds                 // --eviction-hard=memory.available<100Mi
	KindTaints                     // --register-with-taints=k=v:NoSchedule
	KindReservedMemory             // --reserved-memory=0:memory=1Gi;1:memory=2Gi
)

// Form is a KubeletConfiguration field that has a kubelet flag. A flag
// given on the command line wins over the field in the config file.
type Form struct {
	// Config is the field's JSON name: "maxPods".
	Config string
	// Flag is the flag's name without dashes: "max-pods".
	Flag string
	// Kind is the shape of the value.
	Kind Kind
	// LinuxOnly marks settings the Windows kubelet does not have.
	LinuxOnly bool
}

// Forms returns the config fields that have a kubelet flag, in the order
// their flags are written.
func Forms() []Form { return slices.Clone(forms) }

// FormByFlag returns the form of a flag (name without dashes, normalised
// or not).
func FormByFlag(name string) (Form, bool) {
	name = Normalize(name)
	i := slices.IndexFunc(forms, func(f Form) bool { return f.Flag == name })
	if i < 0 {
		return Form{}, false
	}
	return forms[i], true
}

// FormByConfig returns the form of a KubeletConfiguration field.
func FormByConfig(field string) (Form, bool) {
	i := slices.IndexFunc(forms, func(f Form) bool { return f.Config == field })
	if i < 0 {
		return Form{}, false
	}
	return forms[i], true
}

var forms = []Form{
	{Config: "maxPods", Flag: "max-pods", Kind: KindScalar},
	{Config: "podsPerCore", Flag: "pods-per-core", Kind: KindScalar},
	{Config: "clusterDomain", Flag: "cluster-domain", Kind: KindScalar},
	{Config: "clusterDNS", Flag: "cluster-dns", Kind: KindList},
	{Config: "kubeReserved", Flag: "kube-reserved", Kind: KindPairs},
	{Config: "systemReserved", Flag: "system-reserved", Kind: KindPairs},
	{Config: "kubeReservedCgroup", Flag: "kube-reserved-cgroup", Kind: KindScalar, LinuxOnly: true},
	{Config: "systemReservedCgroup", Flag: "system-reserved-cgroup", Kind: KindScalar, LinuxOnly: true},
	{Config: "enforceNodeAllocatable", Flag: "enforce-node-allocatable", Kind: KindList},
	{Config: "evictionHard", Flag: "eviction-hard", Kind: KindThresholds},
	{Config: "evictionSoft", Flag: "eviction-soft", Kind: KindThresholds},
	{Config: "evictionSoftGracePeriod", Flag: "eviction-soft-grace-period", Kind: KindPairs},
	{Config: "evictionMinimumReclaim", Flag: "eviction-minimum-reclaim", Kind: KindPairs},
	{Config: "evictionMaxPodGracePeriod", Flag: "eviction-max-pod-grace-period", Kind: KindScalar},
	{Config: "evictionPressureTransitionPeriod", Flag: "eviction-pressure-transition-period", Kind: KindScalar},
	{Config: "imageGCHighThresholdPercent", Flag: "image-gc-high-threshold", Kind: KindScalar},
	{Config: "imageGCLowThresholdPercent", Flag: "image-gc-low-threshold", Kind: KindScalar},
	{Config: "imageMinimumGCAge", Flag: "minimum-image-ttl-duration", Kind: KindScalar},
	{Config: "registryPullQPS", Flag: "registry-qps", Kind: KindScalar},
	{Config: "registryBurst", Flag: "registry-burst", Kind: KindScalar},
	{Config: "eventRecordQPS", Flag: "event-qps", Kind: KindScalar},
	{Config: "eventBurst", Flag: "event-burst", Kind: KindScalar},
	{Config: "kubeAPIQPS", Flag: "kube-api-qps", Kind: KindScalar},
	{Config: "kubeAPIBurst", Flag: "kube-api-burst", Kind: KindScalar},
	{Config: "serializeImagePulls", Flag: "serialize-image-pulls", Kind: KindScalar},
	{Config: "containerLogMaxSize", Flag: "container-log-max-size", Kind: KindScalar},
	{Config: "containerLogMaxFiles", Flag: "container-log-max-files", Kind: KindScalar},
	{Config: "nodeStatusUpdateFrequency", Flag: "node-status-update-frequency", Kind: KindScalar},
	{Config: "providerID", Flag: "provider-id", Kind: KindScalar},
	{Config: "serverTLSBootstrap", Flag: "rotate-server-certificates", Kind: KindScalar},
	{Config: "rotateCertificates", Flag: "rotate-certificates", Kind: KindScalar},
	{Config: "featureGates", Flag: "feature-gates", Kind: KindPairs},
	{Config: "registerWithTaints", Flag: "register-with-taints", Kind: KindTaints},
	{Config: "cpuCFSQuota", Flag: "cpu-cfs-quota", Kind: KindScalar, LinuxOnly: true},
	{Config: "cpuCFSQuotaPeriod", Flag: "cpu-cfs-quota-period", Kind: KindScalar, LinuxOnly: true},
	{Config: "cpuManagerPolicy", Flag: "cpu-manager-policy", Kind: KindScalar, LinuxOnly: true},
	{Config: "cpuManagerPolicyOptions", Flag: "cpu-manager-policy-options", Kind: KindPairs, LinuxOnly: true},
	{Config: "cpuManagerReconcilePeriod", Flag: "cpu-manager-reconcile-period", Kind: KindScalar, LinuxOnly: true},
	{Config: "topologyManagerPolicy", Flag: "topology-manager-policy", Kind: KindScalar, LinuxOnly: true},
	{Config: "topologyManagerScope", Flag: "topology-manager-scope", Kind: KindScalar, LinuxOnly: true},
	{Config: "topologyManagerPolicyOptions", Flag: "topology-manager-policy-options", Kind: KindPairs, LinuxOnly: true},
	{Config: "memoryManagerPolicy", Flag: "memory-manager-policy", Kind: KindScalar, LinuxOnly: true},
	{Config: "reservedMemory", Flag: "reserved-memory", Kind: KindReservedMemory, LinuxOnly: true},
	{Config: "reservedSystemCPUs", Flag: "reserved-cpus", Kind: KindScalar, LinuxOnly: true},
	{Config: "podPidsLimit", Flag: "pod-max-pids", Kind: KindScalar, LinuxOnly: true},
	{Config: "allowedUnsafeSysctls", Flag: "allowed-unsafe-sysctls", Kind: KindList, LinuxOnly: true},
	{Config: "seccompDefault", Flag: "seccomp-default", Kind: KindScalar, LinuxOnly: true},
	{Config: "protectKernelDefaults", Flag: "protect-kernel-defaults", Kind: KindScalar, LinuxOnly: true},
	{Config: "failSwapOn", Flag: "fail-swap-on", Kind: KindScalar, LinuxOnly: true},
	{Config: "address", Flag: "address", Kind: KindScalar},
	{Config: "readOnlyPort", Flag: "read-only-port", Kind: KindScalar},
	{Config: "hairpinMode", Flag: "hairpin-mode", Kind: KindScalar, LinuxOnly: true},
	{Config: "cgroupDriver", Flag: "cgroup-driver", Kind: KindScalar, LinuxOnly: true},
	{Config: "cgroupRoot", Flag: "cgroup-root", Kind: KindScalar, LinuxOnly: true},
	{Config: "containerRuntimeEndpoint", Flag: "container-runtime-endpoint", Kind: KindScalar},
	{Config: "imageServiceEndpoint", Flag: "image-service-endpoint", Kind: KindScalar},
	{Config: "tlsCertFile", Flag: "tls-cert-file", Kind: KindScalar},
	{Config: "tlsPrivateKeyFile", Flag: "tls-private-key-file", Kind: KindScalar},
}
