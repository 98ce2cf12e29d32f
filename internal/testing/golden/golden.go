// Package golden holds the helpers tests share for golden files and test
// corpora under testdata/: comparing output with a golden file or a tree of
// them (rewriting them instead when the test binary runs with -update) and
// listing corpus inputs. Import it from _test.go files only: it registers
// the -update flag.
package golden

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

// update is set by `go test -update`: compare functions then rewrite the
// golden files with the output instead of comparing.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/ with the current output")

// CompareFile checks that the file at path holds exactly got. With -update
// it writes got to path instead.
func CompareFile(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// Read returns the contents of the file at path, failing the test when it
// cannot be read.
func Read(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
