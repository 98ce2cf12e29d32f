package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// Cluster-side programs `nodeboot rollout` and `nodeboot access` hand over
// to. They use client-go, controller-runtime and AWS clients that must stay
// out of the nodeboot binary on every node's boot path, so they live in
// their own executables.
const (
	RolloutBinary = "nodeboot-rollout"
	AccessBinary  = "nodeboot-access"
)

// execCompanion replaces this process with the binary and args, found
// next to the running nodeboot, else on PATH. A missing binary is a usage
// error (exit code 2).
func execCompanion(binary string, args []string, env Env) error {
	self, _ := os.Executable()
	path, err := findCompanion(binary, self, exec.LookPath)
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

// findCompanion returns binary next to self, else on PATH.
func findCompanion(binary, self string, lookPath func(string) (string, error)) (string, error) {
	if self != "" {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			self = real
		}
		p := filepath.Join(filepath.Dir(self), binary)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := lookPath(binary); err == nil {
		return p, nil
	}
	where := "on PATH"
	if self != "" {
		where = fmt.Sprintf("next to %s or on PATH", self)
	}
	return "", fmt.Errorf("%w: 'nodeboot %s' runs %s, which is not installed %s (build it with go build ./cmd/%s)",
		ErrUsage, strings.TrimPrefix(binary, "nodeboot-"), binary, where, binary)
}
