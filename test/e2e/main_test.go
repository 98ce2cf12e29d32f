//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// interrupted is closed on the first SIGINT or SIGTERM. Every wait in the
// suite gives up when it closes, so that the test fails fast and its
// cleanups stop the daemons and restore the machine; a second signal
// kills the test binary as usual.
var interrupted <-chan struct{}

// machineLock serialises suites across checkouts of this repository: one
// real kubelet per machine (ports 10248/10250, device plugins, cgroup roots).
const machineLock = "/run/lock/nodeboot-e2e.lock"

func TestMain(m *testing.M) {
	release, err := lockMachine(machineLock)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := run(m)
	release()
	os.Exit(code)
}

func run(m *testing.M) int {
	// The harness's own controller-runtime clients (watches, evictions)
	// have nothing to log; unset, controller-runtime prints a warning with
	// a stack trace into the suite's output after 30 s.
	ctrllog.SetLogger(logr.Discard())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	interrupted = ctx.Done()
	go func() {
		<-ctx.Done()
		stop() // restore default handling for a second signal
	}()
	return m.Run()
}

// lockMachine takes an exclusive flock on path, waiting for a suite that
// holds it (the kernel drops the lock if that suite's process dies).
func lockMachine(path string) (release func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("e2e machine lock: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("e2e machine lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: waiting for another suite on this machine to release %s\n", path)
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			f.Close()
			return nil, fmt.Errorf("e2e machine lock %s: %w", path, err)
		}
	}
	return func() { f.Close() }, nil
}
