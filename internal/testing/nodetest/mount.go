package nodetest

import (
	"os"
	"os/exec"
	"testing"
)

// EnvRequireE2E, when set (CI, which runs as root), turns a test that
// RequireRoot would skip into a failure.
const EnvRequireE2E = "NODEBOOT_REQUIRE_E2E"

// RequireRoot skips the test when not run as root (bind mounts, mount
// namespaces), or fails it when EnvRequireE2E is set.
func RequireRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv(EnvRequireE2E) != "" {
		t.Fatal("this test needs root (bind mounts, mount namespaces)")
	}
	t.Skip("this test needs root (bind mounts, mount namespaces)")
}

// BindMount mounts src over dst until the test ends (RequireRoot first).
func BindMount(t testing.TB, src, dst string) {
	t.Helper()
	RequireRoot(t)
	if out, err := exec.Command("mount", "--bind", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("mount --bind: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dst).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dst, err, out)
		}
	})
}
