package inroot

import (
	"os"
	"path/filepath"
	"testing"
)

// The benchmarks compare resolving a directory of a typical node path and
// reading a small file in it: lexically (what nodeboot did before), with
// openat2 RESOLVE_IN_ROOT, with the securejoin fallback, and with Go's
// os.Root (which refuses absolute symbolic links, so is not used).

func benchRoot(b *testing.B) string {
	root := b.TempDir()
	mustWrite(b, filepath.Join(root, "etc/kubernetes/kubelet/config.json"), "{}")
	return root
}

func BenchmarkReadFileLexical(b *testing.B) {
	root := benchRoot(b)
	for b.Loop() {
		if _, err := os.ReadFile(filepath.Join(root, "/etc/kubernetes/kubelet/config.json")); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadFileOSRoot(b *testing.B) {
	r, err := os.OpenRoot(benchRoot(b))
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for b.Loop() {
		if _, err := r.ReadFile("etc/kubernetes/kubelet/config.json"); err != nil {
			b.Fatal(err)
		}
	}
}

func benchmarkReadFile(b *testing.B, fallback bool) {
	forceFallback = fallback
	defer func() { forceFallback = false }()
	r, err := Open(benchRoot(b))
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for b.Loop() {
		if _, err := r.ReadFile("/etc/kubernetes/kubelet/config.json", 1<<20); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadFileOpenat2(b *testing.B)    { benchmarkReadFile(b, false) }
func BenchmarkReadFileSecurejoin(b *testing.B) { benchmarkReadFile(b, true) }

func benchmarkDir(b *testing.B, fallback bool) {
	forceFallback = fallback
	defer func() { forceFallback = false }()
	r, err := Open(benchRoot(b))
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for b.Loop() {
		d, err := r.MkdirAll("/etc/kubernetes/kubelet", 0o755)
		if err != nil {
			b.Fatal(err)
		}
		d.Close()
	}
}

func BenchmarkDirOpenat2(b *testing.B)    { benchmarkDir(b, false) }
func BenchmarkDirSecurejoin(b *testing.B) { benchmarkDir(b, true) }
