//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// containerdDropInDir is where AL2 user data and the AMI put containerd
// fragments; the config rendered for AL2 input must import them, one
// rendered for NodeConfig input must not (nodeadm's does not).
const containerdDropInDir = "/etc/containerd/config.d"

// checkContainerdImports asks the real containerd (its own config loader,
// `containerd config dump`) whether a fragment in /etc/containerd/config.d
// is read with the rendered config, as it must be exactly when want is
// set. The fragment only sets the debug log level and is removed again
// before containerd starts.
func checkContainerdImports(ctx context.Context, want bool) (err error) {
	created := false
	if _, statErr := os.Stat(containerdDropInDir); errors.Is(statErr, fs.ErrNotExist) {
		if err := os.MkdirAll(containerdDropInDir, 0o755); err != nil {
			return err
		}
		created = true
	}
	fragment := filepath.Join(containerdDropInDir, "99-nodeboot-e2e.toml")
	defer func() {
		err = errors.Join(err, os.Remove(fragment))
		if created {
			err = errors.Join(err, os.Remove(containerdDropInDir))
		}
	}()
	if err := os.WriteFile(fragment, []byte("[debug]\nlevel = \"warn\"\n"), 0o644); err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, "containerd", "--config", containerdConfigFile, "config", "dump").CombinedOutput()
	if err != nil {
		return fmt.Errorf("containerd config dump: %w: %s", err, out)
	}
	dump := string(out)
	imported := strings.Contains(dump, fragment) && strings.Contains(dump, `level = "warn"`)
	switch {
	case want && !imported:
		return fmt.Errorf("containerd does not import %s with the config rendered for AL2 input %s:\n%s", fragment, containerdConfigFile, dump)
	case !want && imported:
		return fmt.Errorf("containerd imports %s with the config rendered for NodeConfig input %s (nodeadm's does not):\n%s", fragment, containerdConfigFile, dump)
	}
	return nil
}
