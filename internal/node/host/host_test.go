package host

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/rootfs"
)

type fakeRunner struct {
	out   string
	calls int
}

func (f *fakeRunner) Output(context.Context, string, ...string) ([]byte, error) {
	f.calls++
	return []byte(f.out), nil
}

func TestKubeletVersionPrefersFile(t *testing.T) {
	root := t.TempDir()
	rootfs.WriteFile(t, root, KubeletVersionFile, "v1.35.0-eks-abcdef\n")
	r := &fakeRunner{out: "Kubernetes v1.20.0"}
	v, err := Probe{Root: root, Run: r}.KubeletVersion(context.Background())
	if err != nil || v != "v1.35.0" {
		t.Fatalf("v=%q err=%v", v, err)
	}
	if r.calls != 0 {
		t.Fatal("kubelet was executed although the version file exists")
	}
}

func TestKubeletVersionFallsBackToExec(t *testing.T) {
	r := &fakeRunner{out: "Kubernetes v1.34.4\n"}
	v, err := Probe{Root: t.TempDir(), Run: r}.KubeletVersion(context.Background())
	if err != nil || v != "v1.34.4" || r.calls != 1 {
		t.Fatalf("v=%q err=%v calls=%d", v, err, r.calls)
	}
}

func TestContainerdVersionGarbage(t *testing.T) {
	root := t.TempDir()
	rootfs.WriteFile(t, root, ContainerdVersionFile, "unknown\n")
	_, err := Probe{Root: root}.ContainerdVersion(context.Background())
	if !errors.Is(err, ErrNoVersion) {
		t.Fatalf("err = %v", err)
	}
}

func TestParseCPUList(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     int
		wantErr  bool
	}{
		{"single", "0", 1, false},
		{"range", "0-1", 2, false},
		{"mixed", "0-3,8,10-11", 7, false},
		{"empty", "", 0, true},
		{"reversed", "3-1", 0, true},
		{"garbage", "a-b", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseCPUList(tc.in)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("ParseCPUList(%q) = %d, %v", tc.in, got, err)
			}
		})
	}
}

func TestHardwareProbes(t *testing.T) {
	root := t.TempDir()
	rootfs.WriteFile(t, root, cpuOnlineFile, "0-1\n")
	rootfs.WriteFile(t, root, meminfoFile, "MemTotal:        8011256 kB\nMemFree: 1 kB\n")
	rootfs.WriteFile(t, root, pciDevicesDir+"/0000:00:1e.0/vendor", "0x10de\n")
	rootfs.WriteFile(t, root, NvidiaRuntimePath, "")
	p := Probe{Root: root}
	if n, err := p.CPUs(); err != nil || n != 2 {
		t.Fatalf("CPUs = %d, %v", n, err)
	}
	if m, err := p.MemoryMiB(); err != nil || m != 7823 {
		t.Fatalf("MemoryMiB = %d, %v", m, err)
	}
	if !p.NvidiaGPU() || !p.Exists(NvidiaRuntimePath) {
		t.Fatal("nvidia not detected")
	}
	if (Probe{Root: t.TempDir()}).NvidiaGPU() {
		t.Fatal("nvidia detected on an empty tree")
	}
}

// TestHardwareFallsBackToThisMachine: a --root tree without /sys and /proc
// (a scratch directory) gets this machine's CPU count and memory size, with
// a warning naming each missing file.
func TestHardwareFallsBackToThisMachine(t *testing.T) {
	host := t.TempDir()
	rootfs.WriteFile(t, host, cpuOnlineFile, "0-3\n")
	rootfs.WriteFile(t, host, meminfoFile, "MemTotal:        4096000 kB\n")
	root := t.TempDir()
	var warned []string
	p := Probe{Root: root, hostRoot: host, Warn: func(msg string, args ...any) {
		warned = append(warned, fmt.Sprint(append([]any{msg}, args...)...))
	}}
	if n, err := p.CPUs(); err != nil || n != 4 {
		t.Fatalf("CPUs = %d, %v", n, err)
	}
	if m, err := p.MemoryMiB(); err != nil || m != 4000 {
		t.Fatalf("MemoryMiB = %d, %v", m, err)
	}
	if len(warned) != 2 || !strings.Contains(warned[0], filepath.Join(root, cpuOnlineFile)) ||
		!strings.Contains(warned[1], filepath.Join(root, meminfoFile)) {
		t.Fatalf("warnings = %q, want one naming each missing file", warned)
	}
}

// TestHardwareMissingEverywhere: when this machine cannot answer either,
// the error says what to create under --root.
func TestHardwareMissingEverywhere(t *testing.T) {
	root := t.TempDir()
	_, err := Probe{Root: root, hostRoot: t.TempDir()}.CPUs()
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "create "+cpuOnlineFile+" under --root "+root) {
		t.Fatalf("err = %v", err)
	}
}

// TestHardwareUnderRootWins: facts present under --root are used as they
// are, without a warning.
func TestHardwareUnderRootWins(t *testing.T) {
	root, host := t.TempDir(), t.TempDir()
	rootfs.WriteFile(t, root, cpuOnlineFile, "0\n")
	rootfs.WriteFile(t, host, cpuOnlineFile, "0-7\n")
	p := Probe{Root: root, hostRoot: host, Warn: func(string, ...any) { t.Error("unexpected warning") }}
	if n, err := p.CPUs(); err != nil || n != 1 {
		t.Fatalf("CPUs = %d, %v", n, err)
	}
}
