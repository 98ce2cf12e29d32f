package kubelet

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
	"github.com/nodeboot/nodeboot/internal/config/legacy/eksctlal2"
)

// gpuPresentLabel marks nodes with an NVIDIA PCI device (kubelet ≥ 1.35).
const gpuPresentLabel = "nvidia.com/gpu.present=true"

// KubeletArgs returns the kubelet command line: the generated flags in this
// fixed order, each only when it applies,
//
//	--node-ip, --cloud-provider=external, --hostname-override,
//	--runtime-cgroups, --node-labels (NVIDIA GPU, kubelet ≥ 1.35), --config,
//	--config-dir (with a drop-in), --kubeconfig, --bootstrap-kubeconfig
//	(TLS bootstrap), --image-credential-provider-bin-dir and
//	--image-credential-provider-config (credential provider installed),
//
// followed by spec.kubelet.flags verbatim, last so that they win (the
// kubelet keeps the last value of a scalar flag and merges map flags such as
// --node-labels). --pod-infra-container-image is never emitted. For
// eksctl's AL2 user data (spec.kubelet.eksctlIMDSLabels) the labels its
// script takes from instance metadata (eksctlal2.NodeLabels) are appended
// to the last --node-labels of spec.kubelet.flags, the eksctl call's, as
// the script appends them to NODE_LABELS (withIMDSLabels).
//
// The result is carried by the systemd environment file and word-split by
// systemd, so any flag containing whitespace, a quote or a backslash is
// rejected with ErrUnrepresentableFlag naming the flag.
func KubeletArgs(cfg hub.NodeConfig, in Inputs) ([]string, error) {
	p, err := newPlan(cfg, in)
	if err != nil {
		return nil, err
	}
	return p.kubeletArgs()
}

func (p plan) kubeletArgs() ([]string, error) {
	generated := p.generatedFlags()
	args := make([]string, 0, len(generated)+len(p.cfg.Spec.Kubelet.Flags))
	var errs []error
	for _, f := range generated {
		arg := "--" + f.name + "=" + f.value
		if err := checkFlag(arg); err != nil {
			errs = append(errs, fmt.Errorf("generated flag --%s: %w", f.name, err))
		}
		args = append(args, arg)
	}
	for i, item := range p.cfg.Spec.Kubelet.Flags {
		for _, arg := range userArgs(item) {
			if err := checkFlag(arg); err != nil {
				errs = append(errs, fmt.Errorf("spec.kubelet.flags[%d]: %w", i, err))
			}
			args = append(args, arg)
		}
	}
	if p.cfg.Spec.Kubelet.EksctlIMDSLabels {
		args = withIMDSLabels(args, len(generated), eksctlal2.NodeLabels(p.cfg.Status.Instance))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return args, nil
}

// withIMDSLabels appends labels to the last --node-labels among
// args[userFrom:] (the user's flags), or adds a --node-labels of its own
// when they have none: eksctl's script appends them to the --node-labels
// of its bootstrap.sh call, so a label of the group's by the same key
// loses to them, as it does on AL2.
func withIMDSLabels(args []string, userFrom int, labels string) []string {
	if labels == "" {
		return args
	}
	for i := len(args) - 1; i >= userFrom; i-- {
		f, ok := kubeletflag.Split(args[i])
		if !ok || f.Name != "node-labels" {
			continue
		}
		sep := ","
		if strings.TrimSpace(f.Value) == "" || strings.HasSuffix(f.Value, ",") {
			sep = ""
		}
		args[i] = "--node-labels=" + f.Value + sep + labels
		return args
	}
	return append(args, "--node-labels="+labels)
}

// userArgs is what one kubelet.flags item puts on the command line: one
// flag, or the several flags of an item that holds more than one (nodeadm
// writes such an item as it is and systemd splits it; validation warns).
func userArgs(item string) []string {
	if words := kubeletflag.SeveralFlags(item); words != nil {
		return words
	}
	return []string{kubeletflag.Unquote(item)}
}

type kubeletFlag struct{ name, value string }

func (p plan) generatedFlags() []kubeletFlag {
	flags := []kubeletFlag{
		{"node-ip", p.nodeIP},
		{"cloud-provider", "external"},
		{"hostname-override", p.nodeName},
		{"runtime-cgroups", RuntimeCgroups},
	}
	if p.behaviour.gpuPresentLabel && p.cfg.Status.Hardware.NvidiaGPU {
		flags = append(flags, kubeletFlag{"node-labels", gpuPresentLabel})
	}
	flags = append(flags, kubeletFlag{"config", ConfigPath})
	if p.writesDropIn() {
		flags = append(flags, kubeletFlag{"config-dir", ConfigDir})
	}
	flags = append(flags, kubeletFlag{"kubeconfig", KubeconfigPath})
	if p.identity.tlsBootstrap() {
		flags = append(flags, kubeletFlag{"bootstrap-kubeconfig", BootstrapKubeconfigPath})
	}
	if bin := p.in.CredentialProviderBin; bin != "" {
		flags = append(flags,
			kubeletFlag{"image-credential-provider-bin-dir", path.Dir(bin)},
			kubeletFlag{"image-credential-provider-config", CredentialProviderConfigPath})
	}
	return flags
}

// checkFlag rejects what the trip through the environment file would
// change (kubeletflag.NotOneWord).
func checkFlag(arg string) error {
	if why := kubeletflag.NotOneWord(arg); why != "" {
		return fmt.Errorf("%w: %q %s", ErrUnrepresentableFlag, arg, why)
	}
	return nil
}
