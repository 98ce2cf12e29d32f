package kubelet

import (
	"errors"
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

// newPlan derives the plan; its error joins every problem found (the
// checks that do not depend on one another all run).
func newPlan(cfg hub.NodeConfig, in Inputs) (plan, error) {
	p := plan{cfg: cfg, in: in, userConfig: len(cfg.Spec.Kubelet.Config) > 0}
	var errs []error
	if err := in.validate(); err != nil {
		errs = append(errs, err)
	}
	minor, err := kubeletMinor(cfg.Status.KubeletVersion)
	if err != nil {
		errs = append(errs, err)
	} else {
		p.behaviour = behaviourFor(minor)
		if p.userConfig && !p.behaviour.dropInDir {
			errs = append(errs, fmt.Errorf("%w: kubelet %s is older than v1.28; upgrade it or drop kubelet.config",
				ErrDropInUnsupported, cfg.Status.KubeletVersion))
		}
	}
	if p.nodeName, err = nodeName(cfg); err != nil {
		errs = append(errs, err)
	}
	if p.nodeIP, err = nodeIP(cfg.Status.Instance); err != nil {
		errs = append(errs, err)
	}
	if p.identity, err = resolveIdentity(cfg.Spec); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return plan{}, errors.Join(errs...)
	}
	return p, nil
}
