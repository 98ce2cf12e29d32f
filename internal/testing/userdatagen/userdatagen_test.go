package userdatagen

import (
	"bytes"
	"testing"
)

// TestDeterministic: a seed always gives the same input.
func TestDeterministic(t *testing.T) {
	g := New([]byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"))
	for seed := range uint64(50) {
		a, b := g.Generate(seed), g.Generate(seed)
		if !bytes.Equal(a.UserData, b.UserData) || a.Name != b.Name {
			t.Fatalf("seed %d gave two inputs", seed)
		}
	}
}

// TestCoversTheForms: a few hundred seeds cover every form the generator
// knows (so a fixed-seed run of that size exercises all of them).
func TestCoversTheForms(t *testing.T) {
	g := New([]byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"))
	seen := map[string]bool{}
	for seed := range uint64(300) {
		in := g.Generate(seed)
		for _, form := range forms {
			if bytes.Contains([]byte(in.Name), []byte(form)) {
				seen[form] = true
			}
		}
	}
	for _, form := range forms {
		if !seen[form] {
			t.Errorf("300 seeds never generate %q", form)
		}
	}
}

var forms = []string{"single YAML document", "single JSON document", "MIME, 4 parts", "MIME, 1 parts", `eol "\r\n"`, "quoted false",
	"preamble", "epilogue", "ends on an opening delimiter", "no closing delimiter", "no newline after the closing delimiter",
	"part, base64", "gzip and base64", "7bit", "kubelet flags", "kubelet.config", "maxPodsExpression", "containerd.config",
	"baseRuntimeSpec", "instance.environment", "instance.network", "localStorage", "InstanceIdNodeName",
	"unknown spec field", "unknown cluster field", "cluster without", "apiVersion typo"}
