package kubelet

import (
	"bytes"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/node/render"
)

// Render returns the kubelet's files in a fixed order: base config, user
// drop-in (only with spec.kubelet.config, on kubelets ≥ 1.29; see
// userConfig), kubeconfig or bootstrap
// kubeconfig, CA (only when spec.cluster.certificateAuthority is set),
// credential provider config (only when Inputs.CredentialProviderBin is
// set) and the environment file. It fails with one of the package's
// sentinel errors when a Status value it needs is missing or malformed.
func Render(cfg hub.NodeConfig, in Inputs) ([]render.File, error) {
	p, err := newPlan(cfg, in)
	if err != nil {
		return nil, err
	}
	args, err := p.kubeletArgs()
	if err != nil {
		return nil, err
	}
	parts := []struct {
		wanted bool
		render func(plan) (render.File, error)
	}{
		{true, renderConfig},
		{p.writesDropIn(), renderDropIn},
		{true, renderKubeconfig},
		{len(cfg.Spec.Cluster.CertificateAuthority) > 0, renderCA},
		{in.CredentialProviderBin != "", renderCredentialProvider},
	}
	files := make([]render.File, 0, len(parts)+1)
	for _, part := range parts {
		if !part.wanted {
			continue
		}
		f, err := part.render(p)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return append(files, renderEnvironment(p, args)), nil
}

// renderCA writes the cluster CA bundle verbatim.
func renderCA(p plan) (render.File, error) {
	data := bytes.Clone(p.cfg.Spec.Cluster.CertificateAuthority)
	return render.File{Path: CACertPath, Mode: publicMode, Data: data}, nil
}
