// Package system renders the operating-system files a NodeConfig asks for:
// systemd environment settings (instance.environment) and the
// systemd-resolved drop-in (instance.network). Render is pure; the caller
// writes the files and performs the returned Actions.
package system

import (
	"io/fs"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/node/render"
)

const fileMode fs.FileMode = 0o644

// Actions are the side effects the written files need.
type Actions struct {
	// DaemonReload: a systemd manager or unit drop-in was written, so run
	// `systemctl daemon-reload` before (re)starting services.
	DaemonReload bool
	// RestartResolved: the resolved drop-in was written, so restart
	// systemd-resolved.
	RestartResolved bool
}

// Render returns the environment files (see environmentFiles) and the
// resolved drop-in (see resolvedFile), in that order, plus what must happen
// after writing them. Empty settings produce no files and no actions.
func Render(cfg hub.NodeConfig) ([]render.File, Actions) {
	var actions Actions
	files := environmentFiles(cfg.Spec.Instance.Environment)
	if len(files) > 0 {
		actions.DaemonReload = true
	}
	if resolved, ok := resolvedFile(cfg.Spec.Instance.Network); ok {
		files = append(files, resolved)
		actions.RestartResolved = true
	}
	return files, actions
}
