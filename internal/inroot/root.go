// Package inroot resolves node paths inside a root directory the way the
// node itself sees them with that directory as "/": symbolic links are
// followed, an absolute link target is taken from the root, and ".." never
// climbs above it. A symlinked directory inside the root (etc/kubernetes ->
// /elsewhere, common in mounted images) therefore leads to root/elsewhere,
// never to the host's /elsewhere.
//
// Resolution uses openat2(2) with RESOLVE_IN_ROOT (Linux 5.6 and later); on
// older kernels it falls back to github.com/cyphar/filepath-securejoin/pathrs-lite,
// which walks the path component by component with the same semantics. The
// operations on a resolved directory (create, rename, link, remove, read)
// then act on its file descriptor and a single name, so nothing they do can
// leave the root either. Go's os.Root was measured too, but it refuses
// absolute symbolic links instead of resolving them in the root, and real
// node images have them (see docs/failure-bounds.md).
package inroot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrOutsideRoot is returned for a node path that is not absolute and clean.
var ErrOutsideRoot = errors.New("path escapes the root directory")

// Root is a directory every node path is resolved inside.
type Root struct {
	path string
	fd   *os.File // O_PATH
}

// Open opens the directory at path (on the host) as a root; "" means "/".
func Open(hostPath string) (*Root, error) {
	if hostPath == "" {
		hostPath = "/"
	}
	f, err := os.OpenFile(hostPath, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open root directory: %w", err)
	}
	return &Root{path: hostPath, fd: f}, nil
}

// Close releases the root.
func (r *Root) Close() error { return r.fd.Close() }

// Path returns the host path the root was opened with.
func (r *Root) Path() string { return r.path }

// Rel checks that nodePath is absolute and clean and returns it relative to
// the root ("." for "/").
func Rel(nodePath string) (string, error) {
	if !path.IsAbs(nodePath) {
		return "", fmt.Errorf("%w: %q is not absolute", ErrOutsideRoot, nodePath)
	}
	clean := path.Clean(nodePath)
	if clean != nodePath && clean+"/" != nodePath {
		return "", fmt.Errorf("%w: %q is not clean", ErrOutsideRoot, nodePath)
	}
	if clean == "/" {
		return ".", nil
	}
	return strings.TrimPrefix(clean, "/"), nil
}

// Dir opens the existing directory nodePath.
func (r *Root) Dir(nodePath string) (*Dir, error) {
	rel, err := Rel(nodePath)
	if err != nil {
		return nil, err
	}
	f, err := r.openPath(rel, unix.O_DIRECTORY)
	if err != nil {
		return nil, pathError("open", nodePath, err)
	}
	return &Dir{f: f, path: path.Clean(nodePath)}, nil
}

// MkdirAll opens the directory nodePath, creating it and any missing parent
// with mode perm (before umask).
func (r *Root) MkdirAll(nodePath string, perm os.FileMode) (*Dir, error) {
	d, err := r.Dir(nodePath)
	if !errors.Is(err, fs.ErrNotExist) {
		return d, err
	}
	parent, err := r.MkdirAll(path.Dir(path.Clean(nodePath)), perm)
	if err != nil {
		return nil, err
	}
	defer parent.Close()
	err = unix.Mkdirat(int(parent.f.Fd()), path.Base(nodePath), uint32(perm.Perm()))
	if err != nil && !errors.Is(err, unix.EEXIST) {
		return nil, pathError("mkdir", nodePath, err)
	}
	// Opened again from the root: if the name is a symbolic link, it is
	// resolved inside the root as well.
	d, err = r.Dir(nodePath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, pathError("mkdir", nodePath, errors.New("is a symbolic link to a directory that does not exist (inside the root)"))
	}
	return d, err
}

// Stat returns the file information of nodePath, following symbolic links
// inside the root.
func (r *Root) Stat(nodePath string) (fs.FileInfo, error) {
	rel, err := Rel(nodePath)
	if err != nil {
		return nil, err
	}
	f, err := r.openPath(rel, 0)
	if err != nil {
		return nil, pathError("stat", nodePath, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, pathError("stat", nodePath, err)
	}
	return fi, nil
}

// ReadFile reads the regular file nodePath (symbolic links followed inside
// the root). A file larger than limit bytes is refused with ErrTooLarge
// before it is read; anything but a regular file (a named pipe, a device)
// is refused with ErrNotRegular without being read or blocked on.
func (r *Root) ReadFile(nodePath string, limit int64) ([]byte, error) {
	rel, err := Rel(nodePath)
	if err != nil {
		return nil, err
	}
	f, err := r.openRead(rel)
	if err != nil {
		return nil, pathError("open", nodePath, err)
	}
	defer f.Close()
	return readRegular(f, nodePath, limit)
}

// OpenRegular opens the regular file nodePath for streaming reads
// (symbolic links followed inside the root) and returns it with its
// information. Anything but a regular file is refused with ErrNotRegular
// after a look at it through an O_PATH handle: a named pipe, a socket or a
// device is never opened for reading.
func (r *Root) OpenRegular(nodePath string) (*os.File, fs.FileInfo, error) {
	rel, err := Rel(nodePath)
	if err != nil {
		return nil, nil, err
	}
	h, err := r.openPath(rel, 0)
	if err != nil {
		return nil, nil, pathError("open", nodePath, err)
	}
	fi, err := h.Stat()
	h.Close()
	if err != nil {
		return nil, nil, pathError("stat", nodePath, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, pathError("open", nodePath, notRegular(fi.Mode()))
	}
	f, err := r.openRead(rel)
	if err != nil {
		return nil, nil, pathError("open", nodePath, err)
	}
	// Checked again on the file opened: the name may have been replaced
	// in between (opening with O_NONBLOCK never waits on what replaced it).
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = notRegular(fi.Mode())
		}
		return nil, nil, pathError("open", nodePath, err)
	}
	return f, fi, nil
}

func pathError(op, nodePath string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &fs.PathError{Op: op, Path: nodePath, Err: err}
}
