package kubelet

import (
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

func newPlan(cfg hub.NodeConfig, in Inputs) (plan, error) {
	p := plan{cfg: cfg, in: in}
	if err := in.validate(); err != nil {
		return plan{}, err
	}
	minor, err := kubeletMinor(cfg.Status.KubeletVersion)
	if err != nil {
		return plan{}, err
	}
	p.behaviour = behaviourFor(minor)
	if p.user, err = planUserConfig(cfg.Spec.Kubelet.Config, p.behaviour); err != nil {
		return plan{}, err
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
