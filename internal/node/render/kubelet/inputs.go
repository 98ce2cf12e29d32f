package kubelet

import (
	"fmt"
	"path"
)

// Inputs are values the caller computes elsewhere (max pods, reserved
// resources, installed binaries) and Render only copies into the files.
type Inputs struct {
	// MaxPods is the effective max pods value.
	MaxPods int32 `json:"maxPods,omitempty"`
	// SetMaxPods writes MaxPods into the base config; false leaves the
	// kubelet default (bootstrap.sh --use-max-pods false).
	SetMaxPods bool `json:"setMaxPods,omitempty"`
	// KubeReserved holds cpu, memory and ephemeral-storage reservations.
	KubeReserved map[string]string `json:"kubeReserved,omitempty"`
	// CredentialProviderBin is the absolute path of the ecr-credential-provider
	// binary. Empty means none is installed: no credential provider config or
	// flags are rendered (warning about it is the caller's business).
	CredentialProviderBin string `json:"credentialProviderBin,omitempty"`
}

func (in Inputs) validate() error {
	bin := in.CredentialProviderBin
	if bin == "" {
		return nil
	}
	if !path.IsAbs(bin) || path.Clean(bin) != bin || path.Base(bin) == "/" {
		return fmt.Errorf("%w: %q", ErrInvalidCredentialProviderBin, bin)
	}
	return nil
}
