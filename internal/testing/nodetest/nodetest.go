// Package nodetest prepares node roots for tests that run the nodeboot
// binary with --root.
package nodetest

import (
	"os"
	"path/filepath"
	"testing"
)

// HostFiles are the files FakeMachine writes, relative to the root: what an
// AL2023 AMI has that the agent reads (version files, CPUs, memory).
var HostFiles = map[string]string{
	"etc/eks/kubelet-version.txt":    "v1.34.4\n",
	"etc/eks/containerd-version.txt": "1.7.27\n",
	"sys/devices/system/cpu/online":  "0-1\n",
	"proc/meminfo":                   "MemTotal:        8010000 kB\n",
}

// FakeMachine writes HostFiles under root.
func FakeMachine(t testing.TB, root string) {
	t.Helper()
	for p, data := range HostFiles {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
