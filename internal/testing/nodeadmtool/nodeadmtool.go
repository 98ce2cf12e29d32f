// Package nodeadmtool finds the real nodeadm the tests compare nodeboot
// with: its binaries, built from the Go module pinned in test/tools/nodeadm
// by test/e2e/scripts/build-nodeadm.sh, and that module's own files in the
// module cache (its e2e cases and their mock instance), which are read
// where they are and never copied into this repository.
package nodeadmtool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ModulePath is nodeadm's Go module.
const ModulePath = "github.com/awslabs/amazon-eks-ami/nodeadm"

// EnvDir names a directory holding nodeadm and nodeadm-internal, instead
// of <repo>/.cache/nodeadm.
const EnvDir = "NODEBOOT_NODEADM_DIR"

// ErrMissing is wrapped when the binaries have not been built.
var ErrMissing = errors.New("nodeadm not built; run test/e2e/scripts/build-nodeadm.sh")

// Tool is one built nodeadm and its module's source.
type Tool struct {
	// Nodeadm and Internal are the nodeadm and nodeadm-internal binaries.
	Nodeadm, Internal string
	// Version is the module version.
	Version string
	// ModuleDir is the module's directory in the module cache.
	ModuleDir string
}

// Find returns the built nodeadm and its module directory. A missing
// binary skips t, or fails it when NODEBOOT_REQUIRE_E2E is set.
func Find(t testing.TB) Tool {
	t.Helper()
	tool, err := Locate(t.Context())
	if err == nil {
		return tool
	}
	if errors.Is(err, ErrMissing) && os.Getenv("NODEBOOT_REQUIRE_E2E") == "" {
		t.Skipf("nodeadmtool: %v", err)
	}
	t.Fatalf("nodeadmtool: %v", err)
	return Tool{}
}

// Locate is Find without a test.
func Locate(ctx context.Context) (Tool, error) {
	repo, err := repoRoot()
	if err != nil {
		return Tool{}, err
	}
	dir := os.Getenv(EnvDir)
	if dir == "" {
		dir = filepath.Join(repo, ".cache", "nodeadm")
	}
	tool := Tool{Nodeadm: filepath.Join(dir, "nodeadm"), Internal: filepath.Join(dir, "nodeadm-internal")}
	for _, p := range []string{tool.Nodeadm, tool.Internal} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm()&0o111 == 0 {
			return Tool{}, fmt.Errorf("%s: %w", p, ErrMissing)
		}
	}
	tool.Version, tool.ModuleDir, err = moduleDir(ctx, filepath.Join(repo, "test", "tools", "nodeadm"))
	return tool, err
}

// moduleDir asks the go command where the pinned module is unpacked
// (downloading it when the cache lacks it).
func moduleDir(ctx context.Context, toolsModule string) (version, dir string, err error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", ModulePath)
	cmd.Dir = toolsModule
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", "", fmt.Errorf("go mod download %s: %w\n%s%s", ModulePath, err, out, stderr.String())
	}
	var info struct{ Version, Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil {
		return "", "", fmt.Errorf("go mod download %s: %w", ModulePath, err)
	}
	if info.Error != "" || info.Dir == "" {
		return "", "", fmt.Errorf("go mod download %s: %s", ModulePath, info.Error)
	}
	return info.Version, info.Dir, nil
}

// CasesDir is where the module keeps its e2e cases.
func (t Tool) CasesDir() string { return filepath.Join(t.ModuleDir, "test", "e2e", "cases") }

// Cases lists the e2e case names.
func (t Tool) Cases() ([]string, error) {
	entries, err := os.ReadDir(t.CasesDir())
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// InfraFile returns the path of a file of the e2e infrastructure
// (test/e2e/infra/…), e.g. aemm-default-config.json or mock/cpu.
func (t Tool) InfraFile(p string) string {
	return filepath.Join(t.ModuleDir, "test", "e2e", "infra", filepath.FromSlash(p))
}

// repoRoot walks up from the working directory to the nodeboot module.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(data), "module github.com/nodeboot/nodeboot\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("nodeadmtool: not inside the nodeboot module")
		}
		dir = parent
	}
}
