// Package v1 is CredentialProviderConfig (kubelet.config.k8s.io/v1): the
// types of k8s.io/kubelet/config/v1 generated into zz_generated.types.go by
// hack/gen-k8sapi. The tests prove the copy equal to upstream and fail when
// it is stale.
package v1

//go:generate go run github.com/nodeboot/nodeboot/hack/gen-k8sapi
