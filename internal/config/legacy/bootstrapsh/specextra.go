package bootstrapsh

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
)

var pathKubeletFlags = field.NewPath("spec", "kubelet", "flags").String()

// kubeletExtraArgs applies --kubelet-extra-args: --max-pods goes to
// kubelet.config.maxPods, the other flags to kubelet.flags. As in
// bootstrap.sh, a value mentioning --reserved-cpus unsets the reserved
// cgroups (JSON null in the kubelet config fragment).
func (b *specBuilder) kubeletExtraArgs() {
	s, ok := b.opt(flagKubeletExtraArgs)
	if !ok {
		return
	}
	label := s.label(flagKubeletExtraArgs)
	words, err := KubeletExtraArgs(s.value)
	if err != nil {
		b.errorf(s.pos, pathKubeletFlags, "%s: %v", label, err)
		return
	}
	flags, problems := kubeletflag.Parse(words)
	args, findings := sortKubeletFlags(flags)
	for _, p := range problems {
		b.errorf(s.pos, pathKubeletFlags, "%s: %s", label, p.Message)
	}
	for _, f := range findings {
		if f.warning {
			b.warnf(s.pos, pathKubeletFlags, "%s: %s", label, f.msg)
		} else {
			b.errorf(s.pos, pathKubeletFlags, "%s: %s", label, f.msg)
		}
	}
	for i, f := range args.flags {
		b.spec.Kubelet.Flags = append(b.spec.Kubelet.Flags, f)
		b.at(kubeletFlagPath(i), s.pos)
	}
	if args.hasMaxPods {
		b.setKubeletConfig("maxPods", args.maxPods, s.pos)
	}
	if strings.Contains(s.value, "--reserved-cpus") {
		b.setKubeletConfig("systemReservedCgroup", nil, s.pos)
		b.setKubeletConfig("kubeReservedCgroup", nil, s.pos)
	}
}
