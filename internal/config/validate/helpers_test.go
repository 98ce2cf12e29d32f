package validate

import (
	"encoding/pem"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

// testCA returns a valid PEM CA bundle.
func testCA(t *testing.T) []byte {
	t.Helper()
	return golden.Read(t, "testdata/ca.pem")
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

// wantError is one expected field error: its path and a substring of its body.
type wantError struct {
	field   string
	message string
}

// assertErrors checks errs against want, in order.
func assertErrors(t *testing.T, errs field.ErrorList, want []wantError) {
	t.Helper()
	if len(errs) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%s", len(errs), len(want), render(errs))
	}
	for i, w := range want {
		if errs[i].Field != w.field || !strings.Contains(errs[i].ErrorBody(), w.message) {
			t.Errorf("error %d = %s: %s\nwant %s: …%s…", i, errs[i].Field, errs[i].ErrorBody(), w.field, w.message)
		}
	}
}

// render lists errors one per line for failure messages.
func render(errs field.ErrorList) string {
	var b strings.Builder
	for _, e := range errs {
		b.WriteString(e.Error() + "\n")
	}
	return b.String()
}

// pemBlock encodes one PEM block of the given type.
func pemBlock(typ string, body []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: body})
}
