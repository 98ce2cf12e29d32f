package inroot

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// lockPoll is how often a held lock is tried again.
const lockPoll = 50 * time.Millisecond

// Lock takes the root's exclusive lock: flock(2) on the root directory
// itself, so that taking it writes nothing, and the kernel releases it when
// the process ends, however it ends. It waits until the lock is free or ctx
// ends; waiting, when not nil, is called once if another process holds it.
// The returned function releases the lock.
func (r *Root) Lock(ctx context.Context, waiting func()) (func(), error) {
	fd, err := unix.Openat(int(r.fd.Fd()), ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", r.path, err)
	}
	f := os.NewFile(uintptr(fd), r.path)
	for told := false; ; {
		err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing releases the lock
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", r.path, err)
		}
		if !told && waiting != nil {
			waiting()
			told = true
		}
		t := time.NewTimer(lockPoll)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, fmt.Errorf("another nodeboot run still holds the lock on %s: %w", r.path, context.Cause(ctx))
		}
	}
}
