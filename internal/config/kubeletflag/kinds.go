package kubeletflag

// boolFlags are the kubelet's flags that take no separate value (1.25 to
// 1.34): its boolean flags, and --version, whose value is optional.
// --name alone sets them, and a word after one is not its value.
// test/kubeletcompat checks the list against the real kubelets' --help.
var boolFlags = map[string]bool{
	"add-dir-header": true, "alsologtostderr": true, "anonymous-auth": true, "authentication-token-webhook": true,
	"cgroups-per-qos": true, "cpu-cfs-quota": true, "enable-controller-attach-detach": true,
	"enable-debugging-handlers": true, "enable-load-reader": true, "enable-server": true,
	"exit-on-lock-contention": true, "fail-cgroupv1": true, "fail-swap-on": true, "help": true,
	"kernel-memcg-notification": true, "keep-terminated-pod-volumes": true,
	"local-storage-capacity-isolation": true, "log-json-split-stream": true, "log-text-split-stream": true,
	"logtostderr": true, "make-iptables-util-chains": true, "one-output": true, "protect-kernel-defaults": true,
	"register-node": true, "register-schedulable": true, "rotate-certificates": true,
	"rotate-server-certificates": true, "seccomp-default": true, "serialize-image-pulls": true,
	"skip-headers": true, "skip-log-headers": true, "version": true,
	"contention-profiling": true, "experimental-allocatable-ignore-eviction": true, "log-cadvisor-usage": true,
	"runonce": true, "storage-driver-secure": true,
}

// IsBool reports a boolean kubelet flag (name normalised or not).
func IsBool(name string) bool { return boolFlags[Normalize(name)] }

// accumulating are the kubelet's map and list flags: given twice, the
// values add up instead of the last one winning (checked against the real
// kubelet in test/kubeletcompat).
var accumulating = map[string]bool{
	// map flags: key=value (or key<value) pairs, a later key replacing an
	// earlier one.
	"node-labels": true, "kube-reserved": true, "system-reserved": true, "feature-gates": true,
	"eviction-hard": true, "eviction-soft": true, "eviction-soft-grace-period": true,
	"eviction-minimum-reclaim": true, "cpu-manager-policy-options": true,
	"topology-manager-policy-options": true, "qos-reserved": true,
	// list flags: values appended.
	"cluster-dns": true, "enforce-node-allocatable": true, "allowed-unsafe-sysctls": true,
	"tls-cipher-suites": true, "manifest-url-header": true,
}

// Accumulates reports a map or list flag, whose repeated values add up.
func Accumulates(name string) bool { return accumulating[Normalize(name)] }

// valueFlags are common kubelet flags that take a value: with the boolean
// ones they let a kubelet flag given to the wrong program be recognised.
var valueFlags = map[string]bool{
	"node-labels": true, "register-with-taints": true, "max-pods": true, "pods-per-core": true,
	"node-ip": true, "hostname-override": true, "provider-id": true, "cloud-provider": true,
	"kube-reserved": true, "system-reserved": true, "reserved-cpus": true,
	"eviction-hard": true, "eviction-soft": true, "eviction-soft-grace-period": true,
	"eviction-max-pod-grace-period": true, "eviction-minimum-reclaim": true,
	"image-gc-high-threshold": true, "image-gc-low-threshold": true,
	"cpu-manager-policy": true, "topology-manager-policy": true, "cluster-dns": true,
	"cluster-domain": true, "container-log-max-size": true, "container-log-max-files": true,
	"feature-gates": true, "v": true, "registry-qps": true, "registry-burst": true,
	"root-dir": true, "bootstrap-kubeconfig": true, "kubeconfig": true, "config": true,
	"enforce-node-allocatable": true, "kube-api-qps": true, "kube-api-burst": true,
	"runtime-request-timeout": true, "allowed-unsafe-sysctls": true,
}

// IsKnown reports a common kubelet flag (boolean or taking a value).
func IsKnown(name string) bool {
	name = Normalize(name)
	return boolFlags[name] || valueFlags[name]
}
