package decode

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/config/validate"
	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

// documentField names, in "# want:" lines, problems about the document
// as a whole (syntax errors, a root that is not a mapping).
const documentField = "(document)"

// TestMalformedCorpus decodes every testdata/malformed/*.yaml and checks
// that the fields with problems are exactly those named by its
// "# want: <field path>" lines.
func TestMalformedCorpus(t *testing.T) {
	for _, file := range golden.Glob(t, "testdata/malformed/*.yaml", 30) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data := golden.Read(t, file)
			want := wantFields(string(data))
			if len(want) == 0 {
				t.Fatal(`no "# want: <field path>" line`)
			}
			src := diag.Source{URI: "file://" + file, Line: 1}
			_, all := NodeConfig(userdata.Document{Source: src, Format: userdata.FormatNodeConfig, Data: data})
			problems := all.Filter(diag.SeverityError) // warnings (a second document in one part) are not the point here
			if got := problemFields(problems); !slices.Equal(got, want) {
				t.Errorf("fields with problems = %q, want %q\n%s", got, want, renderProblems(problems))
			}
			for _, p := range problems {
				if p.Position.IsZero() || p.Severity != diag.SeverityError {
					t.Errorf("problem without position or not an error: %s", p)
				}
			}
		})
	}
}

// wantFields returns the sorted, distinct paths of the "# want:" lines.
func wantFields(data string) []string {
	var out []string
	for line := range strings.Lines(data) {
		if f, ok := strings.CutPrefix(strings.TrimSpace(line), "# want:"); ok {
			out = append(out, strings.TrimSpace(f))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// problemFields returns the sorted, distinct fields of problems.
func problemFields(problems diag.List) []string {
	var out []string
	for _, p := range problems {
		f := p.Field
		if f == "" {
			f = documentField
		}
		out = append(out, f)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestValidCorpus decodes every testdata/valid document, which must give
// no problem at all and a complete spec.
func TestValidCorpus(t *testing.T) {
	for _, file := range golden.Glob(t, "testdata/valid/*.yaml", 1) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data := golden.Read(t, file)
			docs, problems := NodeConfig(userdata.Document{Source: diag.Source{URI: "file://" + file, Line: 1}, Data: data})
			if len(problems) != 0 || len(docs) != 1 {
				t.Fatalf("got %d documents and problems:\n%s", len(docs), renderProblems(problems))
			}
			if errs := validate.Merged(docs[0].Spec, validate.Options{}); len(errs) != 0 {
				t.Errorf("Merged: %v", errs)
			}
		})
	}
}
