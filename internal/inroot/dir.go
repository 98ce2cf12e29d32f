package inroot

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// Errors of reads.
var (
	// ErrNotRegular: the path is a named pipe, a device, a socket or a
	// directory where a regular file was expected.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file exceeds the size the caller allows.
	ErrTooLarge = errors.New("file too large")
)

// Dir is an open directory inside a root. Its methods take a single name
// (no "/"): they act on that entry of this very directory and never follow
// a symbolic link in the name itself.
type Dir struct {
	f    *os.File // O_PATH
	path string   // node path
}

// Close releases the directory.
func (d *Dir) Close() error { return d.f.Close() }

// Path returns the directory's node path.
func (d *Dir) Path() string { return d.path }

// Join returns the node path of name in d.
func (d *Dir) Join(name string) string { return path.Join(d.path, name) }

func (d *Dir) fd() int { return int(d.f.Fd()) }

// Lstat returns the information of name without following a link.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) {
	fd, err := unix.Openat(d.fd(), name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, pathError("lstat", d.Join(name), err)
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, pathError("lstat", d.Join(name), err)
	}
	return fi, nil
}

// ReadFile reads the regular file name (a symbolic link is refused), up to
// limit bytes, like Root.ReadFile.
func (d *Dir) ReadFile(name string, limit int64) ([]byte, error) {
	fd, err := unix.Openat(d.fd(), name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, pathError("open", d.Join(name), err)
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	return readRegular(f, d.Join(name), limit)
}

// ReadDir lists the directory.
func (d *Dir) ReadDir() ([]fs.DirEntry, error) {
	fd, err := unix.Openat(d.fd(), ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, pathError("open", d.path, err)
	}
	f := os.NewFile(uintptr(fd), d.path)
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, pathError("readdir", d.path, err)
	}
	return entries, nil
}

// CreateTemp creates a new file named prefix followed by random characters,
// with mode perm, open for writing; it returns the file and its name.
func (d *Dir) CreateTemp(prefix string, perm os.FileMode) (*os.File, string, error) {
	for range 100 {
		name := prefix + randomSuffix()
		fd, err := unix.Openat(d.fd(), name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return nil, "", pathError("create", d.Join(name), err)
		}
		f := os.NewFile(uintptr(fd), d.Join(name))
		// The mode must not depend on the umask (0600 secrets, 0644 configs).
		if err := f.Chmod(perm.Perm()); err != nil {
			f.Close()
			_ = d.Remove(name)
			return nil, "", err
		}
		return f, name, nil
	}
	return nil, "", pathError("create", d.Join(prefix+"*"), unix.EEXIST)
}

// Scratch returns an unnamed file in d, open for reading and writing: it
// has no name from the start (O_TMPFILE) or loses it at once (file
// systems without O_TMPFILE), so nothing is left behind when the process
// dies, and it takes its space on d's file system.
func (d *Dir) Scratch() (*os.File, error) {
	fd, err := unix.Openat(d.fd(), ".", unix.O_RDWR|unix.O_TMPFILE|unix.O_CLOEXEC, 0o600)
	if err == nil {
		return os.NewFile(uintptr(fd), d.Join("(scratch)")), nil
	}
	for range 100 {
		name := ".nodeboot-scratch-" + randomSuffix()
		fd, err := unix.Openat(d.fd(), name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return nil, pathError("create", d.Join(name), err)
		}
		_ = unix.Unlinkat(d.fd(), name, 0)
		return os.NewFile(uintptr(fd), d.Join(name)), nil
	}
	return nil, pathError("create", d.Join(".nodeboot-scratch-*"), unix.EEXIST)
}

// LinkTemp makes a new hard link of name under a fresh temporary name
// (TempPrefix(name) followed by "old-" and random characters) and returns
// that name. A symbolic link is linked itself, not followed.
func (d *Dir) LinkTemp(name string) (string, error) {
	for range 100 {
		tmp := TempPrefix(name) + "old-" + randomSuffix()
		err := d.Link(name, tmp)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		return tmp, err
	}
	return "", pathError("link", d.Join(name), unix.EEXIST)
}

func randomSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Rename renames from to to within d, replacing to.
func (d *Dir) Rename(from, to string) error {
	if err := unix.Renameat(d.fd(), from, d.fd(), to); err != nil {
		return &os.LinkError{Op: "rename", Old: d.Join(from), New: d.Join(to), Err: err}
	}
	return nil
}

// Link makes to a new hard link of from (a link is linked, not followed).
func (d *Dir) Link(from, to string) error {
	if err := unix.Linkat(d.fd(), from, d.fd(), to, 0); err != nil {
		return &os.LinkError{Op: "link", Old: d.Join(from), New: d.Join(to), Err: err}
	}
	return nil
}

// Remove removes the file (or empty directory) name.
func (d *Dir) Remove(name string) error {
	err := unix.Unlinkat(d.fd(), name, 0)
	if errors.Is(err, unix.EISDIR) {
		err = unix.Unlinkat(d.fd(), name, unix.AT_REMOVEDIR)
	}
	if err != nil {
		return pathError("remove", d.Join(name), err)
	}
	return nil
}

// Sync flushes the directory itself (its entries) to disk.
func (d *Dir) Sync() error {
	fd, err := unix.Openat(d.fd(), ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return pathError("open", d.path, err)
	}
	f := os.NewFile(uintptr(fd), d.path)
	defer f.Close()
	if err := f.Sync(); err != nil {
		return pathError("sync", d.path, err)
	}
	return nil
}

// WriteFile replaces name with data (mode perm) atomically: a reader sees
// the old or the new content, never a partial file, even across a crash.
// The temporary file is named "."+name+".nodeboot-*", the pattern stale
// leftovers of a killed run are recognised by.
func (d *Dir) WriteFile(name string, data []byte, perm os.FileMode) error {
	f, tmp, err := d.CreateTemp(TempPrefix(name), perm)
	if err != nil {
		return err
	}
	if err := writeSynced(f, data); err != nil {
		_ = d.Remove(tmp)
		return fmt.Errorf("write %s: %w", d.Join(name), err)
	}
	if err := d.Rename(tmp, name); err != nil {
		_ = d.Remove(tmp)
		return err
	}
	return d.Sync()
}

// TempPrefix is the prefix of the temporary files made next to name.
func TempPrefix(name string) string { return "." + name + tempMarker }

// tempMarker is in the name of every temporary file nodeboot makes.
const tempMarker = ".nodeboot-"

// IsTemp reports whether name is one of nodeboot's temporary files.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name[1:], tempMarker)
}

func writeSynced(f *os.File, data []byte) error {
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readRegular reads f, refusing anything but a regular file of at most limit
// bytes.
func readRegular(f *os.File, nodePath string, limit int64) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, pathError("stat", nodePath, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, pathError("read", nodePath, notRegular(fi.Mode()))
	}
	if fi.Size() > limit {
		return nil, pathError("read", nodePath, tooLarge(limit))
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, pathError("read", nodePath, err)
	}
	if int64(len(b)) > limit { // it grew while being read
		return nil, pathError("read", nodePath, tooLarge(limit))
	}
	return b, nil
}

func tooLarge(limit int64) error {
	return fmt.Errorf("%w: larger than %s", ErrTooLarge, Size(limit))
}

// Size renders a byte count the way limits are documented (1 MiB, 16 KiB).
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func notRegular(m fs.FileMode) error {
	kind := "special file"
	switch {
	case m.IsDir():
		kind = "directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "named pipe"
	case m&fs.ModeSocket != 0:
		kind = "socket"
	case m&fs.ModeCharDevice != 0:
		kind = "character device"
	case m&fs.ModeDevice != 0:
		kind = "block device"
	}
	return fmt.Errorf("%w (it is a %s)", ErrNotRegular, kind)
}
