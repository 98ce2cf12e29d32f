package apply

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/nodeboot/nodeboot/internal/node/render"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestApplyWritesWithModes(t *testing.T) {
	root := t.TempDir()
	w := Writer{Root: root}
	files := []render.File{
		{Path: "/etc/a/config.json", Mode: 0o644, Data: []byte("{}\n")},
		{Path: "/var/lib/kubelet/kubeconfig", Mode: 0o600, Data: []byte("secret\n")},
	}
	res, err := w.Apply(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Written) != 2 || !res.Changed() {
		t.Fatalf("written = %v", res.Written)
	}
	st, err := os.Stat(filepath.Join(root, "var/lib/kubelet/kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("kubeconfig mode = %v, want 0600", st.Mode().Perm())
	}
	if got := readFile(t, filepath.Join(root, "etc/a/config.json")); got != "{}\n" {
		t.Fatalf("content = %q", got)
	}
}

func TestApplyIsIdempotent(t *testing.T) {
	root := t.TempDir()
	w := Writer{Root: root}
	files := []render.File{{Path: "/etc/x", Mode: 0o644, Data: []byte("x")}}
	if _, err := w.Apply(files, nil); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(filepath.Join(root, "etc/x"))
	res, err := w.Apply(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed() || len(res.Unchanged) != 1 {
		t.Fatalf("second apply changed things: %+v", res)
	}
	after, _ := os.Stat(filepath.Join(root, "etc/x"))
	if !before.ModTime().Equal(after.ModTime()) {
		t.Fatal("unchanged file was rewritten")
	}
}

func TestApplyModeChangeRewrites(t *testing.T) {
	root := t.TempDir()
	w := Writer{Root: root}
	if _, err := w.Apply([]render.File{{Path: "/k", Mode: 0o644, Data: []byte("k")}}, nil); err != nil {
		t.Fatal(err)
	}
	res, err := w.Apply([]render.File{{Path: "/k", Mode: 0o600, Data: []byte("k")}}, nil)
	if err != nil || len(res.Written) != 1 {
		t.Fatalf("res=%+v err=%v", res, err)
	}
}

func TestApplyAllOrNothing(t *testing.T) {
	root := t.TempDir()
	w := Writer{Root: root}
	// A regular file where a directory is needed makes staging of the second file fail.
	if err := os.WriteFile(filepath.Join(root, "blocker"), []byte("file"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []render.File{
		{Path: "/etc/first", Mode: 0o644, Data: []byte("1")},
		{Path: "/blocker/second", Mode: 0o644, Data: []byte("2")},
	}
	if _, err := w.Apply(files, nil); err == nil {
		t.Fatal("want error")
	}
	if _, err := os.Stat(filepath.Join(root, "etc/first")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("first file must not be installed when a later one fails: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(root, "etc"))
	if len(entries) != 0 {
		t.Fatalf("staging files left behind: %v", entries)
	}
}

func TestApplyRemovesAbsent(t *testing.T) {
	root := t.TempDir()
	w := Writer{Root: root}
	if _, err := w.Apply([]render.File{{Path: "/d/40-nodeadm.conf", Mode: 0o644, Data: []byte("x")}}, nil); err != nil {
		t.Fatal(err)
	}
	res, err := w.Apply(nil, []string{"/d/40-nodeadm.conf", "/d/never-existed"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Removed) != 1 || res.Removed[0] != "/d/40-nodeadm.conf" {
		t.Fatalf("removed = %v", res.Removed)
	}
}
