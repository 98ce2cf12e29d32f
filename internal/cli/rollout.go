package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// RolloutBinary is the program `nodeboot rollout` hands over to. The node
// rollout controller and its command line use client-go and
// controller-runtime, which must stay out of the nodeboot binary on every
// node's boot path, so they live in their own executable.
const RolloutBinary = "nodeboot-rollout"

// execRollout replaces this process with nodeboot-rollout and args, found
// next to the running nodeboot, else on PATH. A missing binary is a usage
// error (exit code 2).
func execRollout(args []string, env Env) error {
	self, _ := os.Executable()
	path, err := findRollout(self, exec.LookPath)
	if err != nil {
		return err
	}
	run := env.Exec
	if run == nil {
		run = syscall.Exec
	}
	environ := os.Environ
	if env.Environ != nil {
		environ = env.Environ
	}
	if err := run(path, append([]string{path}, args...), environ()); err != nil {
		return fmt.Errorf("run %s: %w", path, err)
	}
	return nil
}

// findRollout returns nodeboot-rollout next to self, else on PATH.
func findRollout(self string, lookPath func(string) (string, error)) (string, error) {
	if self != "" {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			self = real
		}
		p := filepath.Join(filepath.Dir(self), RolloutBinary)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := lookPath(RolloutBinary); err == nil {
		return p, nil
	}
	where := "on PATH"
	if self != "" {
		where = fmt.Sprintf("next to %s or on PATH", self)
	}
	return "", fmt.Errorf("%w: 'nodeboot rollout' runs %s, which is not installed %s (build it with go build ./cmd/nodeboot-rollout)", ErrUsage, RolloutBinary, where)
}
