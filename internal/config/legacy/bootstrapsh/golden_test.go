package bootstrapsh

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

// goldenLine is where every golden script starts in its pretend user
// data (after MIME headers), so that absolute line numbers are checked.
const goldenLine = 7

func goldenDocument(t testing.TB, dir string) userdata.Document {
	t.Helper()
	data := golden.Read(t, filepath.Join(dir, "user-data"))
	return userdata.Document{
		Source: diag.Source{URI: "imds://user-data", Part: 1, ContentType: "text/x-shellscript", Format: "shell", Line: goldenLine},
		Format: userdata.FormatShell,
		Data:   data,
	}
}

// TestGolden parses every testdata/<case>/user-data and compares the spec
// with expected.json and the argument list, positions and problems with
// report.txt.
func TestGolden(t *testing.T) {
	for _, file := range golden.Glob(t, "testdata/*/user-data", 8) {
		dir := filepath.Dir(file)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			res, problems := ParseScript(goldenDocument(t, dir))
			if !res.Found {
				t.Fatalf("no bootstrap.sh call found; problems:\n%v", problems)
			}
			if problems.HasErrors() {
				t.Errorf("unexpected errors:\n%v", problems.Err())
			}
			golden.CompareFile(t, filepath.Join(dir, "expected.json"), specJSON(t, res.Spec))
			golden.CompareFile(t, filepath.Join(dir, "report.txt"), report(res, problems))
		})
	}
}

// specJSON renders a spec as indented JSON, leaving < and > readable.
func specJSON(t testing.TB, spec hub.Spec) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(spec); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// report renders what the golden spec does not show.
func report(res Result, problems diag.List) []byte {
	var b bytes.Buffer
	b.WriteString("# args\n")
	for _, a := range res.Args {
		fmt.Fprintf(&b, "%s\n", a)
	}
	b.WriteString("# positions\n")
	paths := make([]string, 0, len(res.Positions))
	for p := range res.Positions {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		fmt.Fprintf(&b, "%s %d:%d\n", p, res.Positions[p].Line, res.Positions[p].Column)
	}
	b.WriteString("# problems\n")
	for _, p := range problems {
		fmt.Fprintf(&b, "%s\n", p)
	}
	return b.Bytes()
}

// TestGoldenCallLine checks the absolute line of the MNG call: the script
// starts on line 7 of the user data and the call is its sixth line.
func TestGoldenCallLine(t *testing.T) {
	res, _ := ParseScript(goldenDocument(t, "testdata/eks-mng-al2"))
	if got := res.Positions[pathClusterName]; got.Line != goldenLine+5 {
		t.Errorf("cluster name at line %d, want %d", got.Line, goldenLine+5)
	}
	if !strings.HasPrefix(string(res.Spec.Cluster.CertificateAuthority), "-----BEGIN CERTIFICATE-----\n") {
		t.Errorf("CA not decoded: %q", res.Spec.Cluster.CertificateAuthority)
	}
}
