package bootstrapsh

// kubeletBoolFlags are kubelet flags that take no separate value: after
// them a following word is a stray argument, which the kubelet refuses.
var kubeletBoolFlags = map[string]bool{
	"add-dir-header": true, "alsologtostderr": true, "anonymous-auth": true,
	"authentication-token-webhook": true, "cgroups-per-qos": true, "cpu-cfs-quota": true,
	"enable-controller-attach-detach": true, "enable-debugging-handlers": true,
	"enable-load-reader": true, "enable-server": true, "exit-on-lock-contention": true,
	"fail-cgroupv1": true, "fail-swap-on": true, "help": true, "kernel-memcg-notification": true,
	"keep-terminated-pod-volumes": true, "local-storage-capacity-isolation": true,
	"log-json-split-stream": true, "log-text-split-stream": true, "logtostderr": true,
	"make-iptables-util-chains": true, "one-output": true, "protect-kernel-defaults": true,
	"register-node": true, "register-schedulable": true, "rotate-certificates": true,
	"rotate-server-certificates": true, "seccomp-default": true, "serialize-image-pulls": true,
	"skip-headers": true, "skip-log-headers": true,
}

// kubeletValueFlags are common kubelet flags that take a value; with the
// boolean ones they let a misplaced kubelet flag be recognised.
var kubeletValueFlags = map[string]bool{
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

func isKnownKubeletFlag(name string) bool { return kubeletBoolFlags[name] || kubeletValueFlags[name] }
