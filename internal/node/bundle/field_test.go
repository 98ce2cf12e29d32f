package bundle

import (
	"bytes"
	"compress/gzip"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// TestWriteRefusesWhatCouldHangOrLeak plants on a node what hangs or
// leaks a naive collector: named pipes and a socket where files are
// collected, a link out of the root to a host file holding a secret,
// binary data, a gzip file with a secret inside and one that inflates
// past the item limit. The bundle is written within a bound, refuses the
// special files without blocking, reads the link inside the root, and
// withholds what it cannot scan.
func TestWriteRefusesWhatCouldHangOrLeak(t *testing.T) {
	root := t.TempDir()
	now := time.Now()
	for _, p := range []string{"/var/log/kubelet.log", "/etc/kubernetes/pki/ca.crt", "/var/lib/nodeboot/pipe"} {
		mkfifo(t, root, p)
	}
	l, err := net.Listen("unix", filepath.Join(root, "var/lib/nodeboot/sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const hostSecret = "host-only-Secret-0451"
	outside := filepath.Join(t.TempDir(), "environment")
	if err := os.WriteFile(outside, []byte("SECRET="+hostSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	write(t, root, "/etc/eks/kubelet/.keep", "")
	if err := os.Symlink(outside, filepath.Join(root, "etc/eks/kubelet/environment")); err != nil {
		t.Fatal(err)
	}
	write(t, root, "/var/lib/nodeboot/blob.bin", "header\x00\x01\x02 token: "+bootstrapToken+"\n")
	write(t, root, "/var/lib/nodeboot/state.gz", string(gzipped(t, "identity:\n  token: "+bootstrapToken+"\n")))
	write(t, root, "/var/lib/nodeboot/bomb.gz", string(gzipped(t, strings.Repeat("x\n", 600))))
	b := Bundle{Root: root, Since: time.Hour, Tool: "t", Commands: failRunner{t}, MaxItemBytes: 1000,
		FreeBytes: func(string) (uint64, error) { return 10 << 30, nil }, Now: func() time.Time { return now }}
	res, err := awstest.Within(t, func() (Result, error) { return b.Write(context.Background()) })
	if err != nil {
		t.Fatal(err)
	}
	files := unpack(t, res.Path)
	for name, data := range files {
		if bytes.Contains(data, []byte(bootstrapToken)) || bytes.Contains(data, []byte(hostSecret)) {
			t.Errorf("%s leaks a planted secret:\n%s", name, data)
		}
	}
	bySource := map[string]Item{}
	for _, it := range res.Manifest.Items {
		bySource[it.Source] = it
	}
	for src, want := range map[string]string{
		"/var/log/kubelet.log":         "refused: open /var/log/kubelet.log: not a regular file (it is a named pipe)",
		"/etc/kubernetes/pki/ca.crt":   "(it is a named pipe)",
		"/var/lib/nodeboot/pipe":       "(it is a named pipe)",
		"/var/lib/nodeboot/sock":       "(it is a socket)",
		"/etc/eks/kubelet/environment": "not present",
		"/var/lib/nodeboot/blob.bin":   "withheld: line 1: binary data (a NUL byte): cannot be scanned for secrets",
		"/var/lib/nodeboot/bomb.gz":    "withheld: cannot be decoded within the bounds: it inflates past the item limit of 1000 bytes",
	} {
		it, ok := bySource[src]
		if !ok || !strings.Contains(it.Error, want) || it.Name != "" {
			t.Errorf("%s: %+v, want an item with error %q and nothing archived", src, it, want)
		}
		if strings.HasPrefix(want, "withheld") && !it.Withheld {
			t.Errorf("%s: not marked withheld", src)
		}
	}
	if it := bySource["/var/lib/nodeboot/state.gz"]; it.Name == "" || it.Redactions == 0 || !strings.Contains(it.Note, "decompressed (gzip)") {
		t.Errorf("gzip state item %+v, want it decompressed and redacted", it)
	}
}

func mkfifo(t *testing.T, root, p string) {
	t.Helper()
	full := filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(full, 0o644); err != nil {
		t.Fatal(err)
	}
}

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestWriteStopsAtItsDeadline: a run that reaches its time limit lists
// the items it did not reach as skipped and still writes the archive.
func TestWriteStopsAtItsDeadline(t *testing.T) {
	root := t.TempDir()
	write(t, root, "/var/log/kubelet.log", "I1122 line\n")
	b := Bundle{Root: root, Commands: failRunner{t}, RunTimeout: time.Nanosecond,
		FreeBytes: func(string) (uint64, error) { return 10 << 30, nil }}
	res, err := awstest.Within(t, func() (Result, error) { return b.Write(context.Background()) })
	if err != nil {
		t.Fatal(err)
	}
	skipped := 0
	for _, it := range res.Manifest.Items {
		if strings.Contains(it.Error, "the run reached its time limit of 1ns") {
			skipped++
		}
	}
	if skipped == 0 || skipped != len(res.Manifest.Items) {
		t.Errorf("%d of %d items skipped at the deadline: %+v", skipped, len(res.Manifest.Items), res.Manifest.Items)
	}
	if _, err := os.Stat(res.Path); err != nil {
		t.Error(err)
	}
}

// TestWriteHonoursCancellation: a cancelled run (SIGTERM in the binary)
// writes what it has and says it was interrupted.
func TestWriteHonoursCancellation(t *testing.T) {
	root := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := Bundle{Root: root, Commands: failRunner{t}, FreeBytes: func(string) (uint64, error) { return 10 << 30, nil }}
	res, err := awstest.Within(t, func() (Result, error) { return b.Write(ctx) })
	if err == nil || !strings.Contains(err.Error(), "context canceled: a partial bundle was written to") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(res.Path); err != nil {
		t.Error(err)
	}
}
