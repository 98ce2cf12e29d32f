package kubelet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/node/render"
	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

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
	var cases []goldenCase
	for _, name := range golden.Cases(t, "testdata", 10) {
		c := goldenCase{name: name, dir: filepath.Join("testdata", name)}
		readJSON(t, filepath.Join(c.dir, "config.json"), &c.cfg)
		readJSON(t, filepath.Join(c.dir, "inputs.json"), &c.in)
		cases = append(cases, c)
	}
	return cases
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(golden.Read(t, path)))
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

// TestRenderGolden compares each case's files.txt and expected/ tree with
// what Render makes (go test -update rewrites both).
func TestRenderGolden(t *testing.T) {
	for _, tc := range loadGoldenCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			files, err := Render(tc.cfg, tc.in)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			golden.CompareFile(t, filepath.Join(tc.dir, "files.txt"), manifest(files))
			golden.CompareRendered(t, filepath.Join(tc.dir, "expected"), files)
		})
	}
}
