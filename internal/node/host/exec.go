package host

import (
	"context"
	"os/exec"
)

// ExecRunner runs real commands.
type ExecRunner struct{}

// Output runs name with args and returns its standard output.
func (ExecRunner) Output(ctx context.Context, name string, args ...string) ([]byte, error) {
	return exec.CommandContext(ctx, name, args...).Output()
}
