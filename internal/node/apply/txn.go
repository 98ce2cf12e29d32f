package apply

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"

	"golang.org/x/sys/unix"

	"github.com/nodeboot/nodeboot/internal/inroot"
	"github.com/nodeboot/nodeboot/internal/node/render"
)

// Step operations.
const (
	opWrite  = "write"
	opRemove = "remove"
)

// step is one change of a rename set, as the journal records it.
type step struct {
	Op   string `json:"op"`
	Path string `json:"path"` // node path
	// Tmp is the staged file's name (write), next to Path.
	Tmp string `json:"tmp,omitempty"`
	// Backup is the name of the hard link that keeps the previous file, if
	// there was one.
	Backup string `json:"backup,omitempty"`
}

// txn is one Apply: the directories it opened and its steps.
type txn struct {
	root  *inroot.Root
	dirs  map[string]*inroot.Dir
	steps []step
}

func (t *txn) close() {
	for _, d := range t.dirs {
		d.Close()
	}
}

// dir opens (creating it when create) the directory of nodePath once per
// Apply, removing the temporary files earlier runs left in it.
func (t *txn) dir(nodePath string, create bool) (*inroot.Dir, error) {
	name := path.Dir(nodePath)
	if d, ok := t.dirs[name]; ok {
		return d, nil
	}
	var d *inroot.Dir
	var err error
	if create {
		d, err = t.root.MkdirAll(name, 0o755)
	} else {
		d, err = t.root.Dir(name)
	}
	if err != nil {
		return nil, err
	}
	removeStale(d)
	t.dirs[name] = d
	return d, nil
}

// prepare checks every target, stages the files that change and links the
// previous ones; it changes nothing visible.
func (t *txn) prepare(files []render.File, absent []string) (Result, error) {
	var res Result
	for _, f := range files {
		if _, err := inroot.Rel(f.Path); err != nil {
			return Result{}, err
		}
		d, err := t.dir(f.Path, true)
		if err != nil {
			return Result{}, fmt.Errorf("stage %s: %w", f.Path, err)
		}
		changed, err := t.prepareWrite(d, f)
		if err != nil {
			return Result{}, err
		}
		if changed {
			res.Written = append(res.Written, f.Path)
		} else {
			res.Unchanged = append(res.Unchanged, f.Path)
		}
	}
	for _, p := range absent {
		if _, err := inroot.Rel(p); err != nil {
			return Result{}, err
		}
		d, err := t.dir(p, false)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Result{}, fmt.Errorf("remove %s: %w", p, err)
		}
		present, err := t.prepareRemove(d, p)
		if err != nil {
			return Result{}, err
		}
		if present {
			res.Removed = append(res.Removed, p)
		}
	}
	return res, nil
}

// prepareWrite stages f unless the file on disk is already right.
func (t *txn) prepareWrite(d *inroot.Dir, f render.File) (bool, error) {
	base := path.Base(f.Path)
	fi, err := existing(d, base, f.Path, "write a file")
	if err != nil {
		return false, err
	}
	if fi != nil && upToDate(d, base, fi, f) {
		return false, nil
	}
	tmp, err := stage(d, base, f)
	if err != nil {
		return false, fmt.Errorf("stage %s: %w", f.Path, err)
	}
	t.steps = append(t.steps, step{Op: opWrite, Path: f.Path, Tmp: tmp})
	if fi != nil {
		backup, err := keep(d, base, f.Path)
		if err != nil {
			return false, err
		}
		t.steps[len(t.steps)-1].Backup = backup
	}
	return true, nil
}

// prepareRemove plans the removal of nodePath if it exists.
func (t *txn) prepareRemove(d *inroot.Dir, nodePath string) (bool, error) {
	base := path.Base(nodePath)
	fi, err := existing(d, base, nodePath, "remove a file")
	if err != nil || fi == nil {
		return false, err
	}
	backup, err := keep(d, base, nodePath)
	if err != nil {
		return false, err
	}
	t.steps = append(t.steps, step{Op: opRemove, Path: nodePath, Backup: backup})
	return true, nil
}

// existing returns the target's information, nil when there is none, and
// refuses a directory where a file is to be written or removed.
func existing(d *inroot.Dir, base, nodePath, what string) (fs.FileInfo, error) {
	fi, err := d.Lstat(base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s: is a directory; nodeboot must %s there (remove the directory)", nodePath, what)
	}
	return fi, nil
}

// keep makes the hard link that preserves the current file until the set
// is installed. A link fails across mounts, which is how a bind-mounted
// target (which no rename could replace either) is found before any change.
func keep(d *inroot.Dir, base, nodePath string) (string, error) {
	backup, err := d.LinkTemp(base)
	if errors.Is(err, unix.EXDEV) {
		return "", fmt.Errorf("%s: is a mount point (bind-mounted?), which cannot be replaced or removed; unmount it first: %w", nodePath, err)
	}
	if err != nil {
		return "", fmt.Errorf("keep the current %s: %w", nodePath, err)
	}
	return backup, nil
}

func upToDate(d *inroot.Dir, base string, fi fs.FileInfo, f render.File) bool {
	if !fi.Mode().IsRegular() || fi.Mode().Perm() != mode(f) || fi.Size() != int64(len(f.Data)) {
		return false
	}
	old, err := d.ReadFile(base, int64(len(f.Data)))
	return err == nil && bytes.Equal(old, f.Data)
}

func mode(f render.File) os.FileMode {
	if m := f.Mode.Perm(); m != 0 {
		return m
	}
	return 0o644
}

// stage writes f to a synced temporary file next to its target.
func stage(d *inroot.Dir, base string, f render.File) (string, error) {
	tmp, name, err := d.CreateTemp(inroot.TempPrefix(base), mode(f))
	if err != nil {
		return "", err
	}
	if _, err := tmp.Write(f.Data); err != nil {
		tmp.Close()
		_ = d.Remove(name)
		return "", err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		_ = d.Remove(name)
		return "", err
	}
	if err := tmp.Close(); err != nil {
		_ = d.Remove(name)
		return "", err
	}
	return name, nil
}

// discard removes what prepare made; nothing was installed yet.
func (t *txn) discard() {
	for _, s := range t.steps {
		d := t.dirs[path.Dir(s.Path)]
		for _, name := range []string{s.Tmp, s.Backup} {
			if name != "" {
				_ = d.Remove(name)
			}
		}
	}
}

// removeStale removes the temporary files (staged copies, kept links)
// that a killed earlier run left in d. It runs after the journal of such a
// run was rolled back and under the root's lock, so no live run owns them.
func removeStale(d *inroot.Dir) {
	entries, err := d.ReadDir()
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() && inroot.IsTemp(e.Name()) {
			_ = d.Remove(e.Name())
		}
	}
}
