package decode

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

// testSource is where test documents come from; Line 5 makes every
// expected line absolute (document line + 4).
var testSource = diag.Source{URI: "file:///etc/eks/nodeadm.d/10-test.yaml", Line: 5}

// decodeString decodes data as a document starting at testSource.Line.
func decodeString(data string) ([]Decoded, diag.List) {
	return NodeConfig(userdata.Document{Source: testSource, Format: userdata.FormatNodeConfig, Data: []byte(data)})
}

// want is one expected problem: field path, absolute line and column (0 =
// not checked), and a substring of the message.
type want struct {
	field   string
	line    int
	column  int
	message string
}

// assertProblems checks problems against wants, in order.
func assertProblems(t *testing.T, got diag.List, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("got %d problems, want %d:\n%s", len(got), len(wants), renderProblems(got))
	}
	for i, w := range wants {
		p := got[i]
		if p.Field != w.field || p.Position.Line != w.line || (w.column != 0 && p.Position.Column != w.column) ||
			!strings.Contains(p.Message, w.message) || p.Severity != diag.SeverityError {
			t.Errorf("problem %d:\n got %s %d:%d %q\nwant %s %d:%d …%q…", i, p.Field, p.Position.Line, p.Position.Column, p.Message,
				w.field, w.line, w.column, w.message)
		}
	}
}

// renderProblems lists problems one per line.
func renderProblems(ps diag.List) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}

// caBase64 is a valid CA bundle, base64-encoded.
func caBase64(t testing.TB) string {
	t.Helper()
	return base64.StdEncoding.EncodeToString(golden.Read(t, "../validate/testdata/ca.pem"))
}

// eks and nb prefix a spec body (indented by two) with a document header.
const (
	eks = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n"
	nb  = "apiVersion: nodeboot.io/v1alpha1\nkind: NodeConfig\nspec:\n"
)
