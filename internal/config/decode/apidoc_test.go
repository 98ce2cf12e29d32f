package decode

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/validate"
)

// TestAPIDocExample decodes the complete example in the nodeboot.io API's
// package documentation, so the documentation cannot drift from the code.
func TestAPIDocExample(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../../../api/nodeboot/v1alpha1/doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	example := indentedBlock(f.Doc.Text(), "\tapiVersion: ")
	if !strings.Contains(example, "maxPods:") || strings.Count(example, "\n") < 60 {
		t.Fatalf("example not found or cut short:\n%s", example)
	}
	docs, problems := decodeString(example)
	if len(problems) != 0 || len(docs) != 1 {
		t.Fatalf("got %d documents and problems:\n%s", len(docs), renderProblems(problems))
	}
	if errs := validate.Merged(docs[0].Spec, validate.Options{}); len(errs) != 0 {
		t.Errorf("Merged: %v", errs)
	}
	if got := validate.DiscoveryNeeded(docs[0].Spec); len(got) != 1 || got[0] != "spec.cluster.certificateAuthority" {
		t.Errorf("DiscoveryNeeded = %q, want only the CA", got)
	}
}

// indentedBlock returns the tab-indented lines of text starting at the
// line that begins with start, tabs removed.
func indentedBlock(text, start string) string {
	var b strings.Builder
	in := false
	for line := range strings.Lines(text) {
		in = in || strings.HasPrefix(line, start)
		if !in {
			continue
		}
		if !strings.HasPrefix(line, "\t") {
			break
		}
		b.WriteString(strings.TrimPrefix(line, "\t"))
	}
	return b.String()
}
