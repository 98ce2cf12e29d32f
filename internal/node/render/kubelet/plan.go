package kubelet

import (
	"errors"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// plan is what Render derives from the config before it produces bytes;
// computing it validates everything the kubelet flags depend on.
type plan struct {
	cfg       hub.NodeConfig
	in        Inputs
	behaviour behaviour
	nodeName  string
	nodeIP    string
	identity  identity
	// user is spec.kubelet.config split between base file and drop-in.
	user userConfig
}

// writesDropIn reports whether a drop-in (and --config-dir) is rendered.
func (p plan) writesDropIn() bool { return p.user.dropIn != nil }

// newPlan derives the plan; its error joins every problem found (the
// checks that do not depend on one another all run).
func newPlan(cfg hub.NodeConfig, in Inputs) (plan, error) {
	p := plan{cfg: cfg, in: in}
	var errs []error
	if err := in.validate(); err != nil {
		errs = append(errs, err)
	}
	minor, err := kubeletMinor(cfg.Status.KubeletVersion)
	if err != nil {
		errs = append(errs, err)
	} else {
		p.behaviour = behaviourFor(minor)
		if p.user, err = planUserConfig(cfg.Spec.Kubelet.Config, p.behaviour); err != nil {
			errs = append(errs, err)
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
