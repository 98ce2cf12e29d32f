//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Errors wrapped by waitUntil.
var (
	// errTimeout: the condition never held.
	errTimeout = errors.New("timed out")
	// errInterrupted: the test run got SIGINT or SIGTERM.
	errInterrupted = errors.New("interrupted")
)

// waitUntil polls cond every interval until it returns true, returns an
// error, one of the watched processes dies, the run is interrupted, or
// timeout passes. The last
// non-fatal detail cond reported is included in the timeout error.
func waitUntil(ctx context.Context, what string, timeout, interval time.Duration, watched []*process, cond func(context.Context) (bool, string, error)) error {
	return poll(ctx, what, timeout, interval, watched, interrupted, cond)
}

// waitInCleanup is waitUntil for teardown, which must finish even after
// an interrupt.
func waitInCleanup(ctx context.Context, what string, timeout, interval time.Duration, cond func(context.Context) (bool, string, error)) error {
	return poll(ctx, what, timeout, interval, nil, nil, cond)
}

func poll(ctx context.Context, what string, timeout, interval time.Duration, watched []*process, stop <-chan struct{}, cond func(context.Context) (bool, string, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var detail string
	for {
		for _, p := range watched {
			if p == nil {
				continue
			}
			if err := p.aliveErr(); err != nil {
				return fmt.Errorf("waiting for %s: %w", what, err)
			}
		}
		ok, d, err := cond(ctx)
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", what, err)
		}
		if ok {
			return nil
		}
		if d != "" {
			detail = d
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting %s for %s: %w (last: %s)", timeout, what, errTimeout, detail)
		case <-stop:
			return fmt.Errorf("waiting for %s: %w", what, errInterrupted)
		case <-time.After(interval):
		}
	}
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func loopback(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }

func isNotFound(err error) bool { return apierrors.IsNotFound(err) }

func isAlreadyExists(err error) bool { return apierrors.IsAlreadyExists(err) }
