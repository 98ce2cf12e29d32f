package kubelet

import (
	"strings"

	"github.com/nodeboot/nodeboot/internal/node/render"
)

// Environment variables kubelet.service reads from EnvironmentPath.
const (
	// ArgsVariable carries the whole kubelet command line
	// (ExecStart=/usr/bin/kubelet $NODEADM_KUBELET_ARGS).
	ArgsVariable = "NODEADM_KUBELET_ARGS"
	// dropInAlphaVariable enables --config-dir on kubelet 1.29.
	dropInAlphaVariable = "KUBELET_CONFIG_DROPIN_DIR_ALPHA"
)

// renderEnvironment renders the kubelet's EnvironmentFile: the arguments
// line, then KUBELET_CONFIG_DROPIN_DIR_ALPHA=on when a drop-in is used with a
// kubelet that still needs it.
func renderEnvironment(p plan, args []string) render.File {
	var b strings.Builder
	b.WriteString(ArgsVariable)
	b.WriteByte('=')
	b.WriteString(strings.Join(args, " "))
	b.WriteByte('\n')
	if p.writesDropIn() && p.behaviour.dropInAlphaEnv {
		b.WriteString(dropInAlphaVariable + "=on\n")
	}
	return render.File{Path: EnvironmentPath, Mode: publicMode, Data: []byte(b.String())}
}
