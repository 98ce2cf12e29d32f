package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// Glob returns the files matching pattern, failing the test when there are
// fewer than min of them (a corpus that silently shrank tests nothing).
func Glob(t testing.TB, pattern string, min int) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < min {
		t.Fatalf("%s matches %d files, want at least %d", pattern, len(files), min)
	}
	return files
}

// Cases returns the names of the case directories directly below parent,
// in order, failing the test when there are fewer than min of them. The
// fuzz directory, where go test keeps fuzz corpora, is not a case.
func Cases(t testing.TB, parent string, min int) []string {
	t.Helper()
	entries, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, entry := range entries {
		if entry.IsDir() && entry.Name() != "fuzz" {
			names = append(names, entry.Name())
		}
	}
	if len(names) < min {
		t.Fatalf("%s holds %d case directories, want at least %d", parent, len(names), min)
	}
	return names
}
