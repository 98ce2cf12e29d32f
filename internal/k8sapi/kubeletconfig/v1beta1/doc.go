// Package v1beta1 is KubeletConfiguration (kubelet.config.k8s.io/v1beta1):
// the types of k8s.io/kubelet/config/v1beta1, and of the k8s.io/api core and
// k8s.io/component-base logging and tracing types it embeds, generated into
// zz_generated.types.go by hack/gen-k8sapi, plus the constants nodeboot
// uses. The tests prove the copy equal to upstream and fail when it is stale.
package v1beta1

//go:generate go run github.com/nodeboot/nodeboot/hack/gen-k8sapi
