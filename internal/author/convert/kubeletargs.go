package convert

import (
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
	"github.com/nodeboot/nodeboot/internal/config/legacy/bootstrapsh"
)

// typeMetaKeys may appear in kubelet.config but carry no setting.
var typeMetaKeys = map[string]bool{"kind": true, "apiVersion": true}

// argsTarget describes the script that receives kubelet arguments.
type argsTarget struct {
	// script names the target in notes, e.g. "bootstrap.sh".
	script string
	// windows drops Linux-only settings.
	windows bool
	// handled lists config keys the caller passes another way (clusterDNS).
	handled map[string]bool
}

// kubeletArgs returns the kubelet arguments for k: config fields that have
// a flag, in kubeletflag.Forms order, then spec.kubelet.flags verbatim (so
// they win, as they do for nodeboot). Everything else is noted.
func kubeletArgs(k hub.Kubelet, t argsTarget, n *notes) []string {
	var args []string
	for _, form := range kubeletflag.Forms() {
		raw, ok := k.Config[form.Config]
		if !ok || t.handled[form.Config] || unsetByReservedCPUs(k.Config, form.Config) {
			continue
		}
		path := "spec.kubelet.config[" + form.Config + "]"
		if t.windows && form.LinuxOnly {
			n.add(path, "is a Linux-only kubelet setting; Windows nodes do not have it")
			continue
		}
		arg, err := configFlag(form, raw)
		if err != nil {
			n.add(path, "cannot be written as --%s: %v", form.Flag, err)
			continue
		}
		if problem := flagTextProblem(arg); problem != "" {
			n.add(path, "--%s %s", form.Flag, problem)
			continue
		}
		if problem := kubeletArgProblem(arg); problem != "" {
			n.add(path, "left out: %s", problem)
			continue
		}
		args = append(args, arg)
	}
	for _, key := range sortedKeys(k.Config) {
		if _, hasFlag := kubeletflag.FormByConfig(key); hasFlag || typeMetaKeys[key] || t.handled[key] {
			continue
		}
		n.add("spec.kubelet.config["+key+"]", "%s can only pass kubelet flags, and the kubelet has no flag for this field", t.script)
	}
	for i, flag := range k.Flags {
		if problem := flagTextProblem(flag); problem != "" {
			n.add(indexPath("spec.kubelet.flags", i), "%s", problem)
			continue
		}
		if problem := kubeletArgProblem(flag); problem != "" {
			n.add(indexPath("spec.kubelet.flags", i), "left out: %s", problem)
			continue
		}
		args = append(args, flag)
	}
	if k.MaxPodsExpression != "" {
		n.add("spec.kubelet.maxPodsExpression", "%s cannot evaluate a max pods expression; set spec.kubelet.config maxPods instead", t.script)
	}
	return args
}

// indexPath renders path[i].
func indexPath(path string, i int) string {
	return path + "[" + itoa(i) + "]"
}

// kubeletArgProblem returns the first error nodeboot's bootstrap.sh reader
// reports for a lone kubelet argument, or "". Such arguments (an invalid
// label or taint, a stray word) also make the kubelet refuse to start, so
// they are left out: every script convert writes must read back cleanly.
func kubeletArgProblem(arg string) string {
	_, problems := bootstrapsh.ParseArgs([]string{"cluster", "--kubelet-extra-args", arg}, diag.Source{})
	for _, p := range problems.Filter(diag.SeverityError) {
		return strings.TrimPrefix(p.Message, "--kubelet-extra-args: ")
	}
	return ""
}
