package apply

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/nodeboot/nodeboot/internal/node/render"
)

// ErrOutsideRoot is returned for a path that would escape the root.
var ErrOutsideRoot = errors.New("path escapes the root directory")

// Writer applies rendered files under Root ("/" on a real node).
type Writer struct {
	Root string
}

// Result says what Apply changed.
type Result struct {
	Written   []string // paths (as on the node) whose content or mode changed
	Unchanged []string // paths already up to date
	Removed   []string // paths removed because they are no longer rendered
}

// Changed reports whether anything on disk changed.
func (r Result) Changed() bool { return len(r.Written)+len(r.Removed) > 0 }

// Apply writes files and removes the paths in absent that exist. Nothing is
// changed unless every file could be staged.
func (w Writer) Apply(files []render.File, absent []string) (Result, error) {
	var res Result
	staged := make([]stagedFile, 0, len(files))
	cleanup := func() {
		for _, s := range staged {
			_ = os.Remove(s.tmp)
		}
	}
	for _, f := range files {
		target, err := w.Path(f.Path)
		if err != nil {
			cleanup()
			return Result{}, err
		}
		if upToDate(target, f) {
			res.Unchanged = append(res.Unchanged, f.Path)
			continue
		}
		tmp, err := stage(target, f)
		if err != nil {
			cleanup()
			return Result{}, fmt.Errorf("stage %s: %w", f.Path, err)
		}
		staged = append(staged, stagedFile{tmp: tmp, target: target, path: f.Path})
	}
	for i, s := range staged {
		if err := os.Rename(s.tmp, s.target); err != nil {
			cleanup2(staged[i:])
			return res, fmt.Errorf("install %s: %w", s.path, err)
		}
		res.Written = append(res.Written, s.path)
	}
	syncDirs(staged)
	removed, err := w.remove(absent)
	res.Removed = removed
	return res, err
}

// Path maps a node path to the path under the root, refusing escapes.
func (w Writer) Path(nodePath string) (string, error) {
	if !filepath.IsAbs(nodePath) {
		return "", fmt.Errorf("%w: %q is not absolute", ErrOutsideRoot, nodePath)
	}
	root := w.Root
	if root == "" {
		root = "/"
	}
	clean := filepath.Clean(nodePath)
	if clean != nodePath && clean+"/" != nodePath {
		return "", fmt.Errorf("%w: %q is not clean", ErrOutsideRoot, nodePath)
	}
	return filepath.Join(root, clean), nil
}

type stagedFile struct{ tmp, target, path string }

func cleanup2(rest []stagedFile) {
	for _, s := range rest {
		_ = os.Remove(s.tmp)
	}
}

func upToDate(target string, f render.File) bool {
	st, err := os.Lstat(target)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != f.Mode.Perm() {
		return false
	}
	old, err := os.ReadFile(target)
	return err == nil && bytes.Equal(old, f.Data)
}

func stage(target string, f render.File) (string, error) {
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(target)+".nodeboot-*")
	if err != nil {
		return "", err
	}
	name := tmp.Name()
	if err := writeSynced(tmp, f); err != nil {
		_ = os.Remove(name)
		return "", err
	}
	return name, nil
}

func writeSynced(tmp *os.File, f render.File) error {
	mode := f.Mode.Perm()
	if mode == 0 {
		mode = 0o644
	}
	if err := tmp.Chmod(mode); err != nil {
		_ = tmp.Close()
		return err
	}
	if _, err := tmp.Write(f.Data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return err
	}
	return tmp.Close()
}

func syncDirs(staged []stagedFile) {
	seen := map[string]bool{}
	for _, s := range staged {
		dir := filepath.Dir(s.target)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		if d, err := os.Open(dir); err == nil {
			_ = d.Sync()
			_ = d.Close()
		}
	}
}

func (w Writer) remove(paths []string) ([]string, error) {
	var removed []string
	for _, p := range paths {
		target, err := w.Path(p)
		if err != nil {
			return removed, err
		}
		err = os.Remove(target)
		switch {
		case err == nil:
			removed = append(removed, p)
		case errors.Is(err, fs.ErrNotExist):
		default:
			return removed, fmt.Errorf("remove %s: %w", p, err)
		}
	}
	return removed, nil
}
