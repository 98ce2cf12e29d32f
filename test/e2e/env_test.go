//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/aemmtest"
)

// suiteEnv locates everything the suite reads from the machine: the repo,
// the prebuilt Kubernetes binaries, the image tars and the work directory.
type suiteEnv struct {
	repo      string // repository root (holds go.mod)
	k8sBin    string // kube-apiserver, kube-controller-manager, kubelet, kubectl, etcd
	imagesDir string // pause.tar, busybox.tar (build-images.sh)
	workDir   string // per-run scratch: PKI, logs, etcd data, harness binaries
	report    string // timings JSON
	keep      bool   // keep workDir after a passing run
}

// loadEnv resolves the suite's inputs, overridable by NODEBOOT_E2E_* env
// variables, and fails with the command to run when an input is missing.
func loadEnv(t *testing.T) suiteEnv {
	t.Helper()
	if os.Geteuid() != 0 {
		const why = "the real e2e suite needs root (it runs containerd and a kubelet on this machine)"
		if os.Getenv(aemmtest.EnvRequireE2E) != "" {
			t.Fatalf("%s, and %s is set", why, aemmtest.EnvRequireE2E)
		}
		t.Skip(why)
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatalf("repo root: %v", err)
	}
	if _, err := os.Stat(filepath.Join(repo, "go.mod")); err != nil {
		t.Fatalf("repo root %s has no go.mod: run the suite from test/e2e (go test ./test/e2e/)", repo)
	}
	cache := filepath.Join(repo, ".cache", "e2e")
	e := suiteEnv{
		repo:      repo,
		k8sBin:    envOr("NODEBOOT_E2E_BIN", filepath.Join(cache, "bin")),
		imagesDir: envOr("NODEBOOT_E2E_IMAGES", filepath.Join(cache, "images")),
		workDir:   envOr("NODEBOOT_E2E_WORK", filepath.Join(cache, "run")),
		report:    envOr("NODEBOOT_E2E_REPORT", filepath.Join(cache, "report.json")),
		keep:      os.Getenv("NODEBOOT_E2E_KEEP") != "",
	}
	for _, b := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kubelet"} {
		requireFile(t, filepath.Join(e.k8sBin, b), "test/e2e/scripts/build-k8s.sh")
	}
	for _, img := range []string{"pause.tar", "busybox.tar"} {
		requireFile(t, filepath.Join(e.imagesDir, img), "test/e2e/scripts/build-images.sh")
	}
	if _, err := aemmtest.Binary(); err != nil {
		t.Fatalf("%v: run test/e2e/scripts/build-aemm.sh first", err)
	}
	for _, b := range []string{"/usr/bin/containerd", "/usr/bin/ctr", "/usr/sbin/runc", "/usr/lib/cni/bridge"} {
		requireFile(t, b, "test/e2e/scripts/install-deps.sh")
	}
	return e
}

func (e suiteEnv) k8s(name string) string { return filepath.Join(e.k8sBin, name) }

func requireFile(t *testing.T, path, fix string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("missing %s: run %s first", path, fix)
	}
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
