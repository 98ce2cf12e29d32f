//go:build e2e

package e2e

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"
)

// interrupted is closed on the first SIGINT or SIGTERM. Every wait in the
// suite gives up when it closes, so that the test fails fast and its
// cleanups stop the daemons and restore the machine; a second signal
// kills the test binary as usual.
var interrupted <-chan struct{}

func TestMain(m *testing.M) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	interrupted = ctx.Done()
	go func() {
		<-ctx.Done()
		stop() // restore default handling for a second signal
	}()
	os.Exit(m.Run())
}
