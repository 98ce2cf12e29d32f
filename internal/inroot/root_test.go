package inroot

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// modes runs a test with openat2 and with the securejoin fallback.
func modes(t *testing.T, test func(t *testing.T)) {
	t.Run("openat2", func(t *testing.T) {
		if !hasOpenat2() {
			t.Skip("kernel without openat2")
		}
		test(t)
	})
	t.Run("securejoin fallback", func(t *testing.T) {
		forceFallback = true
		t.Cleanup(func() { forceFallback = false })
		test(t)
	})
}

func mustWrite(t testing.TB, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func openRoot(t *testing.T, dir string) *Root {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestRel(t *testing.T) {
	for _, tc := range []struct {
		name, path, want string
	}{
		{"absolute", "/etc/x", "etc/x"},
		{"root", "/", "."},
		{"trailing slash", "/etc/", "etc"},
		{"relative", "etc/x", ""},
		{"dotdot", "/etc/../../x", ""},
		{"double slash", "/etc//x", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Rel(tc.path)
			if tc.want == "" {
				if !errors.Is(err, ErrOutsideRoot) {
					t.Fatalf("Rel(%q) = %q, %v; want ErrOutsideRoot", tc.path, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Rel(%q) = %q, %v; want %q", tc.path, got, err, tc.want)
			}
		})
	}
}

// TestLinksResolveInsideTheRoot: whatever a symbolic link inside the root
// says, the file reached is the one the node would see with the root as /.
func TestLinksResolveInsideTheRoot(t *testing.T) {
	modes(t, func(t *testing.T) {
		root, host := t.TempDir(), t.TempDir()
		mustWrite(t, filepath.Join(host, "secret"), "host file")
		mustWrite(t, filepath.Join(root, host, "secret"), "root file")
		mustWrite(t, filepath.Join(root, "data/secret"), "root data")
		for name, target := range map[string]string{
			"abs":      host,                           // absolute: taken from the root
			"climb":    "../../../../../../../" + host, // .. stops at the root
			"relative": "data",
			"chain":    "/abs", // a link to a link
		} {
			if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
				t.Fatal(err)
			}
		}
		r := openRoot(t, root)
		for _, tc := range []struct{ path, want string }{
			{"/abs/secret", "root file"},
			{"/climb/secret", "root file"},
			{"/relative/secret", "root data"},
			{"/chain/secret", "root file"},
		} {
			got, err := r.ReadFile(tc.path, 100)
			if err != nil || string(got) != tc.want {
				t.Errorf("ReadFile(%s) = %q, %v; want %q", tc.path, got, err, tc.want)
			}
		}
		d, err := r.MkdirAll("/abs/new/dir", 0o755)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		if err := d.WriteFile("f", []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(root, host, "new/dir/f")); err != nil {
			t.Errorf("file not created inside the root: %v", err)
		}
		if _, err := os.Stat(filepath.Join(host, "new")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("directory created on the host: %v", err)
		}
	})
}

// TestReadFileRefusesWhatCouldBlockOrExhaust: a named pipe (which a plain
// open would wait on forever) and a file over the limit are refused without
// being read.
func TestReadFileRefusesWhatCouldBlockOrExhaust(t *testing.T) {
	modes(t, func(t *testing.T) {
		root := t.TempDir()
		if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, filepath.Join(root, "big"), strings.Repeat("x", 101))
		mustWrite(t, filepath.Join(root, "fits"), strings.Repeat("x", 100))
		r := openRoot(t, root)
		done := make(chan error, 1)
		go func() { _, err := r.ReadFile("/fifo", 100); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") {
				t.Errorf("fifo: %v, want ErrNotRegular naming a named pipe", err)
			}
		case <-time.After(time.Minute): // only catches a hang
			t.Fatal("reading a named pipe blocked")
		}
		if _, err := r.ReadFile("/big", 100); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "/big") {
			t.Errorf("big: %v, want ErrTooLarge naming the path", err)
		}
		if b, err := r.ReadFile("/fits", 100); err != nil || len(b) != 100 {
			t.Errorf("fits: %d bytes, %v", len(b), err)
		}
		d, err := r.Dir("/")
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		if _, err := d.ReadFile("fifo", 100); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Dir.ReadFile(fifo): %v, want ErrNotRegular", err)
		}
	})
}

// TestOpenRegularRefusesSpecialFiles: a named pipe, a socket and a
// device are refused without being opened for reading; a link out of the
// root leads inside it.
func TestOpenRegularRefusesSpecialFiles(t *testing.T) {
	modes(t, func(t *testing.T) {
		root := t.TempDir()
		if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := net.Listen("unix", filepath.Join(root, "sock"))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		outside := filepath.Join(t.TempDir(), "secret")
		mustWrite(t, outside, "outside")
		mustWrite(t, filepath.Join(root, strings.TrimPrefix(outside, "/")), "inside")
		if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("/dev/null", filepath.Join(root, "null")); err != nil {
			t.Fatal(err)
		}
		r := openRoot(t, root)
		for name, want := range map[string]string{"/fifo": "named pipe", "/sock": "socket", "/dev/null": "", "/null": ""} {
			done := make(chan error, 1)
			go func() { _, _, err := r.OpenRegular(name); done <- err }()
			select {
			case err := <-done:
				if err == nil || want != "" && (!errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), want)) {
					t.Errorf("%s: %v, want a refusal naming %q", name, err, want)
				}
			case <-time.After(time.Minute): // only catches a hang
				t.Fatalf("opening %s blocked", name)
			}
		}
		f, _, err := r.OpenRegular("/link")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if b, _ := io.ReadAll(f); string(b) != "inside" {
			t.Errorf("the link read %q, want the file inside the root", b)
		}
		host := openRoot(t, "/")
		if _, _, err := host.OpenRegular("/dev/null"); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "character device") {
			t.Errorf("/dev/null: %v, want a refusal naming a character device", err)
		}
	})
}

func TestMkdirAllThroughADanglingLink(t *testing.T) {
	modes(t, func(t *testing.T) {
		root := t.TempDir()
		if err := os.Symlink("/data/kubelet", filepath.Join(root, "kubelet")); err != nil {
			t.Fatal(err)
		}
		_, err := openRoot(t, root).MkdirAll("/kubelet/pki", 0o755)
		if err == nil || !strings.Contains(err.Error(), "/kubelet: is a symbolic link to a directory that does not exist") {
			t.Fatalf("MkdirAll = %v, want it to say the link dangles", err)
		}
	})
}

func TestDirOperations(t *testing.T) {
	modes(t, func(t *testing.T) {
		root := t.TempDir()
		r := openRoot(t, root)
		d, err := r.MkdirAll("/etc/kubernetes", 0o755)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		if err := d.WriteFile("a", []byte("one"), 0o600); err != nil {
			t.Fatal(err)
		}
		if fi, err := d.Lstat("a"); err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != 3 {
			t.Fatalf("Lstat(a) = %v, %v; want a 0600 file of 3 bytes", fi, err)
		}
		kept, err := d.LinkTemp("a")
		if err != nil || !IsTemp(kept) {
			t.Fatalf("LinkTemp = %q, %v", kept, err)
		}
		if err := d.WriteFile("a", []byte("two"), 0o600); err != nil {
			t.Fatal(err)
		}
		if b, _ := d.ReadFile(kept, 10); string(b) != "one" {
			t.Errorf("the kept link reads %q, want the previous content", b)
		}
		if err := d.Rename(kept, "a"); err != nil {
			t.Fatal(err)
		}
		if b, _ := d.ReadFile("a", 10); string(b) != "one" {
			t.Errorf("after renaming the link back: %q", b)
		}
		if err := d.Remove("a"); err != nil {
			t.Fatal(err)
		}
		entries, err := d.ReadDir()
		if err != nil || len(entries) != 0 {
			t.Errorf("ReadDir = %v, %v; want nothing left (no temporary file either)", entries, err)
		}
		if _, err := r.Dir("/etc/missing"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Dir(missing) = %v, want fs.ErrNotExist", err)
		}
	})
}

func TestIsTemp(t *testing.T) {
	for name, want := range map[string]bool{
		".config.json.nodeboot-0a1b2c":     true,
		".config.json.nodeboot-old-0a1b2c": true,
		"config.json":                      false,
		"config.json.nodeboot-1":           false, // not hidden: not ours
		".config.json":                     false,
	} {
		if got := IsTemp(name); got != want {
			t.Errorf("IsTemp(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestLockIsExclusiveAndWaits(t *testing.T) {
	dir := t.TempDir()
	first, second := openRoot(t, dir), openRoot(t, dir)
	unlock, err := first.Lock(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{})
	got := make(chan error, 1)
	go func() {
		unlock2, err := second.Lock(t.Context(), func() { close(waited) })
		if err == nil {
			unlock2()
		}
		got <- err
	}()
	<-waited // the second run saw the lock held and waits
	unlock()
	if err := <-got; err != nil {
		t.Fatalf("second lock after release: %v", err)
	}

	unlock, err = first.Lock(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if _, err := second.Lock(ctx, nil); err == nil || !strings.Contains(err.Error(), "another nodeboot run") {
		t.Fatalf("Lock while held until the deadline = %v, want an error naming the other run", err)
	}
}
