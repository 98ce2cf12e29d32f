package decode

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	yaml "sigs.k8s.io/yaml/goyaml.v3"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/config/validate"
)

// FuzzNodeConfig feeds arbitrary bytes to the decoder, seeded with every
// document under testdata. It checks that decoding never panics (a
// recovered panic shows up as an "internal error" problem), that every
// position lies inside the input, and that a document without errors
// passes validate.Spec.
func FuzzNodeConfig(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/*")
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil && !strings.HasSuffix(s, ".golden") {
			f.Add(data)
		}
	}
	f.Add([]byte(eks + "  cluster: &c {name: x}\n  kubelet: {config: {evictionHard: {a: *c}}}\n"))
	f.Add([]byte("{\"apiVersion\": \"nodeboot.io/v1alpha1\", \"kind\": \"NodeConfig\", \"spec\": {\"maxPods\": {\"maxENIs\": 1e3}}}"))
	f.Add([]byte(eks + "  cluster: &c {name: x, <<: {id: y}}\n  kubelet: {config: {kubeReserved: {<<: [*c, {cpu: 1}], a: yes, a: 2.0}}}\n---\n" + eks + "  x: [\n"))
	f.Add([]byte("a: 1\r\rb: ["))                                    // lone CRs: the parser breaks lines, editors do not
	f.Add([]byte(eks + "  cluster:\u2028    nmae: c\u0085  x: 1\n")) // LS and NEL likewise
	f.Fuzz(func(t *testing.T, data []byte) {
		const base = 3
		src := diag.Source{URI: "fuzz", Line: base}
		docs, problems := NodeConfig(userdata.Document{Source: src, Format: userdata.FormatNodeConfig, Data: data})
		lastLine := base + bytes.Count(data, []byte("\n")) + 1
		for _, p := range problems {
			if strings.Contains(p.Message, "internal error") {
				t.Fatalf("decoder panicked: %s", p)
			}
			if !p.Position.IsZero() && (p.Position.Line < base || p.Position.Line > lastLine) {
				t.Fatalf("position outside the input (lines %d-%d): %s", base, lastLine, p)
			}
		}
		for _, d := range docs {
			for path, pos := range d.Positions {
				if pos.Line < base || pos.Line > lastLine || pos.Column < 1 {
					t.Fatalf("Positions[%q] = %+v outside the input", path, pos)
				}
			}
			if !problems.HasErrors() {
				if errs := validate.Spec(d.Spec); len(errs) != 0 {
					t.Fatalf("no problems reported but validate.Spec finds %v", errs)
				}
			}
		}
	})
}

// TestNodeConfigRecoversFromPanics makes a hook panic and checks that the
// panic becomes a problem instead of crashing the agent.
func TestNodeConfigRecoversFromPanics(t *testing.T) {
	const path = "spec.cluster.name"
	hooks[path] = func(*walker, *yaml.Node, string, reflect.Value) { panic("boom") }
	defer delete(hooks, path)
	docs, problems := decodeString(eks + "  cluster:\n    name: c\n")
	assertProblems(t, problems, []want{{"", 0, 0, "internal error while decoding NodeConfig (please report this): boom"}})
	if len(docs) != 0 {
		t.Errorf("got %d documents from a failed decode", len(docs))
	}
}
