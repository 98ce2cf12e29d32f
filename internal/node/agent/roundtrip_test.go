package agent

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/nodeboot/nodeboot/internal/author/convert"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/testing/nodeview"
)

// TestConvertedUserDataRendersTheSame converts legacy user data to a
// NodeConfig MIME document and checks that the node gets byte-identical
// files either way: migrating a launch template changes nothing on the node.
func TestConvertedUserDataRendersTheSame(t *testing.T) {
	for _, name := range []string{"al2-mng-mime", "al2-labels-taints", "al2-minimal-discovery",
		"al2-partial-discovery-ca-only", "al2-partial-discovery-endpoint-only", "bottlerocket-dotted", "bottlerocket-table"} {
		t.Run(name, func(t *testing.T) {
			original := readCase(t, name)
			direct := renderUserData(t, original)

			in := readInput(t, original)
			spec, left, err := in.ConversionSpec()
			if err != nil {
				t.Fatal(err)
			}
			converted, notes, err := convert.NodeConfig(spec)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("notes: %v %v", left, notes)
			viaNodeConfig := renderUserData(t, converted)
			for _, d := range nodeview.Diff(readView(t, direct), readView(t, viaNodeConfig)) {
				t.Errorf("the node differs after conversion: %s", d)
			}
		})
	}
}

// readView reads rendered files the way the node's daemons read them.
func readView(t *testing.T, files map[string][]byte) nodeview.View {
	t.Helper()
	root := t.TempDir()
	for p, data := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, err := nodeview.Read(root, nodeview.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return v
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
