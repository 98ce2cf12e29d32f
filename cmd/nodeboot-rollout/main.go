// Command nodeboot-rollout replaces the nodes of an Auto Scaling group with
// nodes of a new launch-template version, as EKS managed node groups do:
// the NodeGroupRollout controller and the command line that drives it. See
// internal/cluster/rollout and docs/rollout.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/nodeboot/nodeboot/internal/cluster/rollout/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := app.Main(ctx, os.Args[1:], app.Env{Stdout: os.Stdout, Stderr: os.Stderr, Terminal: isTerminal(os.Stdout)})
	stop()
	os.Exit(code)
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
