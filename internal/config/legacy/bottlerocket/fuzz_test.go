package bottlerocket

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/config/validate"
)

// FuzzDecode feeds arbitrary bytes to Decode: it must not fail internally,
// every problem and position must lie within the document, and a document
// without errors must pass the hub's value checks.
func FuzzDecode(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/malformed/*.toml")
	for _, path := range seeds {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data, 1)
		}
	}
	f.Add([]byte(typicalSettings(f)), 7)
	f.Add([]byte("settings = { kubernetes = { cluster-name = 'a', node-taints = { a = [':NoSchedule'] } } }"), 1)
	f.Fuzz(func(t *testing.T, data []byte, line int) {
		line = max(1, min(line, 1000))
		res, problems := Decode(userdata.Document{Source: diag.Source{URI: "fuzz", Line: line}, Data: data})
		last := line + bytes.Count(data, []byte("\n"))
		for _, p := range problems {
			if strings.Contains(p.Message, "internal error") {
				t.Fatalf("internal error: %s", p)
			}
			if p.Position.Line < line || p.Position.Line > last {
				t.Fatalf("problem on line %d outside %d..%d: %s", p.Position.Line, line, last, p)
			}
		}
		for path, pos := range res.Positions {
			if pos.Line < line || pos.Line > last {
				t.Fatalf("%s on line %d outside %d..%d", path, pos.Line, line, last)
			}
		}
		if !problems.HasErrors() {
			if errs := validate.Spec(res.Spec); len(errs) > 0 {
				t.Fatalf("no errors reported, but the spec is invalid: %v", errs)
			}
		}
	})
}
