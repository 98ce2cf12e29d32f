package kubelet

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/hub"
	"github.com/nodeboot/nodeboot/internal/render"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// goldenCase is one directory under testdata/: config.json (hub NodeConfig)
// and inputs.json in, files.txt (mode and path of every rendered file) and
// expected/<node path> out.
type goldenCase struct {
	name string
	dir  string
	cfg  hub.NodeConfig
	in   Inputs
}

func loadGoldenCases(t testing.TB) []goldenCase {
	t.Helper()
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "fuzz" { // testdata/fuzz holds fuzz corpora
			continue
		}
		c := goldenCase{name: e.Name(), dir: filepath.Join("testdata", e.Name())}
		readJSON(t, filepath.Join(c.dir, "config.json"), &c.cfg)
		readJSON(t, filepath.Join(c.dir, "inputs.json"), &c.in)
		cases = append(cases, c)
	}
	if len(cases) < 10 {
		t.Fatalf("found %d golden cases, want at least 10", len(cases))
	}
	return cases
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// manifest lists mode and path of each file, one per line, in render order.
func manifest(files []render.File) []byte {
	var b bytes.Buffer
	for _, f := range files {
		fmt.Fprintf(&b, "%04o %s\n", f.Mode.Perm(), f.Path)
	}
	return b.Bytes()
}

func expectedPath(dir, nodePath string) string {
	return filepath.Join(dir, "expected", filepath.FromSlash(strings.TrimPrefix(nodePath, "/")))
}

func TestRenderGolden(t *testing.T) {
	for _, tc := range loadGoldenCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			files, err := Render(tc.cfg, tc.in)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			if *update {
				writeGolden(t, tc.dir, files)
			}
			compareGolden(t, tc.dir, files)
		})
	}
}

func writeGolden(t *testing.T, dir string, files []render.File) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(dir, "expected")); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		p := expectedPath(dir, f.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "files.txt"), manifest(files), 0o644); err != nil {
		t.Fatal(err)
	}
}

func compareGolden(t *testing.T, dir string, files []render.File) {
	t.Helper()
	wantManifest, err := os.ReadFile(filepath.Join(dir, "files.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := manifest(files); !bytes.Equal(got, wantManifest) {
		t.Errorf("files.txt mismatch\n--- got\n%s--- want\n%s", got, wantManifest)
	}
	for _, f := range files {
		want, err := os.ReadFile(expectedPath(dir, f.Path))
		if err != nil {
			t.Errorf("%s: %v", f.Path, err)
			continue
		}
		if !bytes.Equal(f.Data, want) {
			t.Errorf("%s differs from golden (run go test -update)\n--- got\n%s\n--- want\n%s", f.Path, f.Data, want)
		}
	}
	assertNoStrayGolden(t, dir, len(files))
}

// assertNoStrayGolden fails when expected/ holds files Render no longer makes.
func assertNoStrayGolden(t *testing.T, dir string, rendered int) {
	t.Helper()
	var n int
	err := filepath.WalkDir(filepath.Join(dir, "expected"), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != rendered {
		t.Errorf("expected/ holds %d files, Render returned %d", n, rendered)
	}
}
