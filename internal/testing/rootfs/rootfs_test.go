package rootfs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileCreatesDirectories(t *testing.T) {
	root := t.TempDir()
	WriteFile(t, root, "/a/b/c.txt", "x\n")
	got, err := os.ReadFile(filepath.Join(root, "a/b/c.txt"))
	if err != nil || string(got) != "x\n" {
		t.Fatalf("read back %q, %v", got, err)
	}
}
