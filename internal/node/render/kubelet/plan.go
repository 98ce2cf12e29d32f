package kubelet

import (
	"fmt"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// plan is what Render derives from the config before it produces bytes;
// computing it validates everything the kubelet flags depend on.
type plan struct {
	cfg        hub.NodeConfig
	in         Inputs
	behaviour  behaviour
	nodeName   string
	nodeIP     string
	identity   identity
	userConfig bool
}

func newPlan(cfg hub.NodeConfig, in Inputs) (plan, error) {
	p := plan{cfg: cfg, in: in, userConfig: len(cfg.Spec.Kubelet.Config) > 0}
	if err := in.validate(); err != nil {
		return plan{}, err
	}
	minor, err := kubeletMinor(cfg.Status.KubeletVersion)
	if err != nil {
		return plan{}, err
	}
	p.behaviour = behaviourFor(minor)
	if p.userConfig && !p.behaviour.dropInDir {
		return plan{}, fmt.Errorf("%w: kubelet %s is older than v1.28; upgrade it or drop kubelet.config",
			ErrDropInUnsupported, cfg.Status.KubeletVersion)
	}
	if p.nodeName, err = nodeName(cfg); err != nil {
		return plan{}, err
	}
	if p.nodeIP, err = nodeIP(cfg.Status.Instance); err != nil {
		return plan{}, err
	}
	if p.identity, err = resolveIdentity(cfg.Spec); err != nil {
		return plan{}, err
	}
	return p, nil
}
