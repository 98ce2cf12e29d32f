package system

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/nodeboot/nodeboot/internal/render"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// checkGolden compares files with testdata/<name>/<absolute node path>: the
// same set of paths and the same bytes; a missing directory means no files.
// With -update it rewrites the case directory instead.
func checkGolden(t *testing.T, name string, files []render.File) {
	t.Helper()
	dir := filepath.Join("testdata", name)
	if *update {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatalf("clear %s: %v", dir, err)
		}
		for _, file := range files {
			target := filepath.Join(dir, filepath.FromSlash(file.Path))
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				t.Fatalf("mkdir: %v", err)
			}
			if err := os.WriteFile(target, file.Data, 0o644); err != nil {
				t.Fatalf("write golden: %v", err)
			}
		}
		return
	}
	want := map[string][]byte{}
	if _, err := os.Stat(dir); err == nil {
		want = readGoldenDir(t, dir)
	}
	got := map[string][]byte{}
	for _, file := range files {
		if _, dup := got[file.Path]; dup {
			t.Errorf("path %s rendered twice", file.Path)
		}
		got[file.Path] = file.Data
	}
	for _, path := range sortedKeys(want) {
		data, ok := got[path]
		if !ok {
			t.Errorf("missing file %s", path)
			continue
		}
		if !bytes.Equal(data, want[path]) {
			t.Errorf("%s differs from golden (run go test -update to accept)\n--- got ---\n%s\n--- want ---\n%s", path, data, want[path])
		}
	}
	for _, path := range sortedKeys(got) {
		if _, ok := want[path]; !ok {
			t.Errorf("unexpected file %s", path)
		}
	}
}

func readGoldenDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, entry fs.DirEntry, err error) error {
		if err != nil || entry.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		files["/"+filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		t.Fatalf("read golden dir %s: %v (run go test -update to create it)", dir, err)
	}
	return files
}
