// Package gobuild builds this module's commands from tests the way
// `make build` does (no cgo, -trimpath), so that the packages they compile
// are the ones the build, lint and end-to-end tests already have in the Go
// build cache. A cold machine then compiles the large dependency trees
// (client-go, controller-runtime, the AWS SDK) once for all of them.
package gobuild

import (
	"context"
	"fmt"
	"os"
	"os/exec"
)

// Build runs `go build -trimpath [-tags tags] -o out pkg` in dir with cgo
// disabled (the caller's environment otherwise) and returns an error
// holding the compiler's output when the build fails.
func Build(ctx context.Context, dir, out, pkg, tags string) error {
	args := []string{"build", "-trimpath"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, "-o", out, pkg)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w\n%s", cmd, err, b)
	}
	return nil
}
