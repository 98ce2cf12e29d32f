package bootstrapsh

import "github.com/nodeboot/nodeboot/internal/config/validate"

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

func isKnownKubeletFlag(name string) bool {
	return validate.IsKubeletBoolFlag(name) || kubeletValueFlags[name]
}
