package merge

import (
	"fmt"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// Specs merges specs in order, later ones winning, by the rules in the
// package documentation. No spec gives the zero Spec. Errors name the index
// of the offending spec and wrap ErrInvalidTOML or ErrInvalidJSON.
func Specs(specs ...hub.Spec) (hub.Spec, error) {
	var merged hub.Spec
	for i, spec := range specs {
		if err := mergeSpec(&merged, spec); err != nil {
			return hub.Spec{}, fmt.Errorf("merge spec %d: %w", i, err)
		}
	}
	return merged, nil
}

// mergeSpec lays src over dst.
func mergeSpec(dst *hub.Spec, src hub.Spec) error {
	mergeCluster(&dst.Cluster, src.Cluster)
	if err := mergeContainerd(&dst.Containerd, src.Containerd); err != nil {
		return err
	}
	mergeInstance(&dst.Instance, src.Instance)
	if err := mergeKubelet(&dst.Kubelet, src.Kubelet); err != nil {
		return err
	}
	mergeMap(&dst.FeatureGates, src.FeatureGates)
	mergeIdentity(&dst.Identity, src.Identity)
	mergeMaxPods(&dst.MaxPods, src.MaxPods)
	return nil
}

func mergeCluster(dst *hub.Cluster, src hub.Cluster) {
	setScalar(&dst.Name, src.Name)
	setScalar(&dst.APIServerEndpoint, src.APIServerEndpoint)
	replaceSlice(&dst.CertificateAuthority, src.CertificateAuthority)
	setScalar(&dst.CIDR, src.CIDR)
	setBoolPointer(&dst.EnableOutpost, src.EnableOutpost)
	setScalar(&dst.ID, src.ID)
	setScalar(&dst.IPFamily, src.IPFamily)
}

func mergeContainerd(dst *hub.Containerd, src hub.Containerd) error {
	config, err := TOML([]byte(dst.Config), []byte(src.Config))
	if err != nil {
		return fmt.Errorf("containerd.config: %w", err)
	}
	dst.Config = string(config)
	spec, err := JSONObjects(dst.BaseRuntimeSpec, src.BaseRuntimeSpec)
	if err != nil {
		return fmt.Errorf("containerd.baseRuntimeSpec: %w", err)
	}
	dst.BaseRuntimeSpec = spec
	dst.ImportConfigDir = dst.ImportConfigDir || src.ImportConfigDir // an AL2 part makes an AL2 node
	return nil
}

func mergeInstance(dst *hub.Instance, src hub.Instance) {
	mergeEnvironment(&dst.Environment, src.Environment)
	setScalar(&dst.LocalStorage.Strategy, src.LocalStorage.Strategy)
	setScalar(&dst.LocalStorage.MountPath, src.LocalStorage.MountPath)
	replaceSlice(&dst.LocalStorage.DisabledMounts, src.LocalStorage.DisabledMounts)
	replaceSlice(&dst.Network.Nameservers, src.Network.Nameservers)
	replaceSlice(&dst.Network.Domains, src.Network.Domains)
}

// mergeEnvironment merges per service, then per variable.
func mergeEnvironment(dst *map[string]map[string]string, src map[string]map[string]string) {
	for service, variables := range src {
		if *dst == nil {
			*dst = make(map[string]map[string]string, len(src))
		}
		inner := (*dst)[service]
		mergeMap(&inner, variables)
		if inner == nil {
			// Keep an explicitly empty service entry: it is harmless and
			// records that a source mentioned the service.
			inner = map[string]string{}
		}
		(*dst)[service] = inner
	}
}

func mergeKubelet(dst *hub.Kubelet, src hub.Kubelet) error {
	config, err := JSONObjects(dst.Config, src.Config)
	if err != nil {
		return fmt.Errorf("kubelet.config: %w", err)
	}
	dst.Config = config
	if len(src.Flags) > 0 {
		dst.Flags = append(append(make([]string, 0, len(dst.Flags)+len(src.Flags)), dst.Flags...), src.Flags...)
	}
	setScalar(&dst.MaxPodsExpression, src.MaxPodsExpression)
	dst.EksctlIMDSLabels = dst.EksctlIMDSLabels || src.EksctlIMDSLabels // an eksctl AL2 part labels the node
	return nil
}

func mergeIdentity(dst *hub.Identity, src hub.Identity) {
	setScalar(&dst.Mode, src.Mode)
	setScalar(&dst.Exec.Command, src.Exec.Command)
	replaceSlice(&dst.Exec.Args, src.Exec.Args)
	mergeMap(&dst.Exec.Env, src.Exec.Env)
	setScalar(&dst.BootstrapToken.Token, src.BootstrapToken.Token)
	replaceSlice(&dst.BootstrapToken.CACertHashes, src.BootstrapToken.CACertHashes)
	setScalar(&dst.BootstrapToken.UnsafeSkipCAVerification, src.BootstrapToken.UnsafeSkipCAVerification)
}

func mergeMaxPods(dst *hub.MaxPodsPolicy, src hub.MaxPodsPolicy) {
	setBoolPointer(&dst.PrefixDelegation, src.PrefixDelegation)
	setBoolPointer(&dst.CustomNetworking, src.CustomNetworking)
	setScalar(&dst.MaxENIs, src.MaxENIs)
	setBoolPointer(&dst.Cap, src.Cap)
	setBoolPointer(&dst.Set, src.Set)
}

// setScalar applies the scalar rule: a non-zero src wins, zero never clears.
func setScalar[T comparable](dst *T, src T) {
	var zero T
	if src != zero {
		*dst = src
	}
}

// setBoolPointer applies the *bool rule: any non-nil src wins (copied).
func setBoolPointer(dst **bool, src *bool) {
	if src != nil {
		value := *src
		*dst = &value
	}
}

// replaceSlice applies the slice rule: a non-empty src replaces (copied).
func replaceSlice[T any](dst *[]T, src []T) {
	if len(src) > 0 {
		*dst = append(make([]T, 0, len(src)), src...)
	}
}

// mergeMap applies the map rule: every key present in src wins.
func mergeMap[V any](dst *map[string]V, src map[string]V) {
	if len(src) == 0 {
		return
	}
	if *dst == nil {
		*dst = make(map[string]V, len(src))
	}
	for key, value := range src {
		(*dst)[key] = value
	}
}
