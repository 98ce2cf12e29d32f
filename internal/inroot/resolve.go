package inroot

import (
	"errors"
	"os"
	"sync"

	pathrs "github.com/cyphar/filepath-securejoin/pathrs-lite"
	"golang.org/x/sys/unix"
)

// resolveFlags make openat2 resolve like a chroot: absolute symbolic links
// and ".." stay inside the starting directory; /proc magic links are refused.
const resolveFlags = unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS

// hasOpenat2 probes the kernel once, on first use.
var hasOpenat2 = sync.OnceValue(func() bool {
	fd, err := unix.Openat2(unix.AT_FDCWD, ".", &unix.OpenHow{
		Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: resolveFlags,
	})
	if err != nil {
		return false
	}
	_ = unix.Close(fd)
	return true
})

// forceFallback makes tests take the securejoin path on any kernel.
var forceFallback bool

func useOpenat2() bool { return !forceFallback && hasOpenat2() }

// openPath opens rel (relative to the root) as an O_PATH handle, with extra
// flags such as O_DIRECTORY.
func (r *Root) openPath(rel string, extra int) (*os.File, error) {
	if useOpenat2() {
		return r.openat2(rel, unix.O_PATH|extra)
	}
	f, err := pathrs.OpenatInRoot(r.fd, rel)
	if err != nil {
		return nil, err
	}
	if extra&unix.O_DIRECTORY != 0 {
		if fi, err := f.Stat(); err != nil || !fi.IsDir() {
			f.Close()
			return nil, errors.Join(unix.ENOTDIR, err)
		}
	}
	return f, nil
}

// openRead opens rel for reading without blocking: a named pipe is opened
// with O_NONBLOCK (and then refused by readRegular), never waited on.
func (r *Root) openRead(rel string) (*os.File, error) {
	if useOpenat2() {
		return r.openat2(rel, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY)
	}
	h, err := pathrs.OpenatInRoot(r.fd, rel)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	// Check the type on the O_PATH handle before reopening it: reopening a
	// named pipe for reading could block.
	fi, err := h.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(fi.Mode())
	}
	return pathrs.Reopen(h, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY)
}

func (r *Root) openat2(rel string, flags int) (*os.File, error) {
	how := &unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Resolve: resolveFlags}
	for range 16 { // EAGAIN: a concurrent rename or mount anywhere; retry
		fd, err := unix.Openat2(int(r.fd.Fd()), rel, how)
		if errors.Is(err, unix.EAGAIN) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return os.NewFile(uintptr(fd), rel), nil
	}
	return nil, unix.EAGAIN
}
