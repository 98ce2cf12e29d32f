package golden

import (
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/node/render"
)

// ReadTree returns every file below dir by its slash-separated path
// relative to dir. A missing dir holds no files (git keeps no empty
// directories).
func ReadTree(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return files
	}
	err := filepath.WalkDir(dir, func(path string, entry fs.DirEntry, err error) error {
		if err != nil || entry.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)], err = os.ReadFile(path)
		return err
	})
	if err != nil {
		t.Fatalf("read golden tree %s: %v", dir, err)
	}
	return files
}

// CompareTree checks that dir holds exactly the files of got (keyed as
// ReadTree keys them): the same paths with the same bytes. With -update it
// replaces dir with those files instead.
func CompareTree(t testing.TB, dir string, got map[string][]byte) {
	t.Helper()
	if *update {
		writeTree(t, dir, got)
		return
	}
	want := ReadTree(t, dir)
	for _, rel := range slices.Sorted(maps.Keys(want)) {
		data, ok := got[rel]
		if !ok {
			t.Errorf("%s: golden file, but no such output (run go test -update to accept)", filepath.Join(dir, rel))
			continue
		}
		if !bytes.Equal(data, want[rel]) {
			t.Errorf("%s differs (run go test -update to accept):\n--- got\n%s\n--- want\n%s", filepath.Join(dir, rel), data, want[rel])
		}
	}
	for _, rel := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[rel]; !ok {
			t.Errorf("%s: output without a golden file (run go test -update to accept)", filepath.Join(dir, rel))
		}
	}
}

// CompareRendered is CompareTree for rendered files: each file is kept
// under dir at its absolute node path, and no path may be rendered twice.
func CompareRendered(t testing.TB, dir string, files []render.File) {
	t.Helper()
	got := make(map[string][]byte, len(files))
	for _, file := range files {
		rel, ok := strings.CutPrefix(file.Path, "/")
		if !ok {
			t.Errorf("path %q is not absolute", file.Path)
		}
		if _, dup := got[rel]; dup {
			t.Errorf("path %s rendered twice", file.Path)
		}
		got[rel] = file.Data
	}
	CompareTree(t, dir, got)
}

// writeTree replaces dir with the files of tree.
func writeTree(t testing.TB, dir string, tree map[string][]byte) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	for rel, data := range tree {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
