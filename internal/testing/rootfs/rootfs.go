// Package rootfs helps tests lay out files under a scratch --root.
package rootfs

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFile writes data (mode 0644) to nodePath under root, creating the
// directories on the way, and fails the test on any error.
func WriteFile(t testing.TB, root, nodePath, data string) {
	t.Helper()
	p := filepath.Join(root, nodePath)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
