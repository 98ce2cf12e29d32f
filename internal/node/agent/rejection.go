package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/nodeboot/nodeboot/internal/inroot"
)

// RejectionPath is where a config phase that failed says why. It is in
// /run, so it lasts for this boot only. The /etc/eks/bootstrap.sh shim (and
// `nodeboot bootstrap-sh`) refuse to configure and start the node from a
// script's arguments alone while it exists: that would drop everything else
// the rejected user data said (a NodeConfig's taints, for example).
const RejectionPath = "/run/nodeboot/config-rejected"

// maxRejectionSize bounds the reason kept (a long list of problems).
const maxRejectionSize = 64 << 10

// Rejection returns the recorded reason why this boot's config phase
// failed; an error wrapping fs.ErrNotExist means it did not.
func (a *Agent) Rejection() (string, error) {
	b, err := a.readFile(RejectionPath, maxRejectionSize)
	return string(b), err
}

// recordRejection keeps why the config phase failed for the shim to show.
func (a *Agent) recordRejection(reason error) {
	msg := reason.Error()
	if len(msg) > maxRejectionSize-1 {
		msg = msg[:maxRejectionSize-1]
	}
	if err := a.withRunDir(true, func(d *inroot.Dir) error {
		return d.WriteFile(path.Base(RejectionPath), []byte(msg+"\n"), 0o644)
	}); err != nil {
		a.Log.Warn("could not record the rejection for the bootstrap.sh shim", "path", RejectionPath, "error", err)
	}
}

// clearRejection removes the note once a config phase succeeded.
func (a *Agent) clearRejection() {
	err := a.withRunDir(false, func(d *inroot.Dir) error { return d.Remove(path.Base(RejectionPath)) })
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		a.Log.Warn("could not remove the rejection note", "path", RejectionPath, "error", err)
	}
}

// withRunDir runs f on the directory of RejectionPath, created if create.
func (a *Agent) withRunDir(create bool, f func(d *inroot.Dir) error) error {
	root, err := inroot.Open(a.Root)
	if err != nil {
		return err
	}
	defer root.Close()
	var d *inroot.Dir
	if create {
		d, err = root.MkdirAll(path.Dir(RejectionPath), 0o755)
	} else {
		d, err = root.Dir(path.Dir(RejectionPath))
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path.Dir(RejectionPath), err)
	}
	defer d.Close()
	return f(d)
}
