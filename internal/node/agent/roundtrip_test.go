package agent

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/nodeboot/nodeboot/internal/author/convert"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// TestConvertedUserDataRendersTheSame converts legacy user data to a
// NodeConfig MIME document and checks that the node gets byte-identical
// files either way: migrating a launch template changes nothing on the node.
func TestConvertedUserDataRendersTheSame(t *testing.T) {
	for _, name := range []string{"al2-mng-mime", "al2-labels-taints", "al2-minimal-discovery", "bottlerocket-dotted", "bottlerocket-table"} {
		t.Run(name, func(t *testing.T) {
			original := readCase(t, name)
			direct := renderUserData(t, original)

			in := readInput(t, original)
			spec, _, err := in.Merged()
			if err != nil {
				t.Fatal(err)
			}
			converted, notes, err := convert.NodeConfig(spec)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("notes: %v", notes)
			viaNodeConfig := renderUserData(t, converted)
			if names(direct) != names(viaNodeConfig) {
				t.Fatalf("file sets differ:\n%s\n%s", names(direct), names(viaNodeConfig))
			}
			for p, want := range direct {
				if !bytes.Equal(want, viaNodeConfig[p]) {
					t.Errorf("%s differs after conversion\n--- direct\n%s\n--- via NodeConfig\n%s", p, want, viaNodeConfig[p])
				}
			}
		})
	}
}

func readInput(t *testing.T, data []byte) Input {
	t.Helper()
	docs, problems := userdata.Split(diag.Source{URI: "imds://user-data"}, data)
	in := Input{Documents: docs, Problems: problems}
	for _, d := range docs {
		frags, p := DecodeDocument(d)
		in.Fragments = append(in.Fragments, frags...)
		in.Problems = append(in.Problems, p...)
	}
	if in.Problems.HasErrors() {
		t.Fatal(in.Problems.Err())
	}
	return in
}

func renderUserData(t *testing.T, data []byte) map[string][]byte {
	t.Helper()
	root := t.TempDir()
	a, _, _ := newTestAgent(t, root, data, loadCase(t, filepath.Join("testdata/cases", "minimal")))
	if err := a.Init(context.Background(), initOpts()); err != nil {
		t.Fatalf("init: %v", err)
	}
	return writtenFiles(t, root)
}
