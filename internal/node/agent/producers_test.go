package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

// producerExpectation is a corpus entry's expect file: "check: pass"
// (config check reports nothing) or "check: warn" with one
// "warning: SUBSTRING | DOC | PHRASE" line per warning allowed, each
// explained in DOC by a line holding PHRASE.
type producerExpectation struct {
	check    string
	warnings []allowedWarning
}

type allowedWarning struct{ substring, doc, phrase string }

// TestProducerUserData: user data in the forms EKS managed node groups,
// eksctl, Karpenter, Terraform's EKS module and the AWS docs produce
// (testdata/producers, written for this test; each family with and
// without custom parts) passes config check, or passes with only the
// warnings its expect file allows, each explained in the docs; and the
// node boots from it.
func TestProducerUserData(t *testing.T) {
	for _, dir := range golden.Glob(t, "testdata/producers/*", 20) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			exp := readProducerExpectation(t, dir)
			userData := golden.Read(t, filepath.Join(dir, "user-data"))
			root := t.TempDir()
			a, _, _ := newTestAgent(t, root, userData, loadCase(t, "testdata/cases/minimal"))
			rep, err := a.Check(context.Background(), []string{"imds://user-data"})
			if err != nil {
				t.Fatal(err)
			}
			if errs := rep.Problems.Filter(diag.SeverityError); len(errs) > 0 {
				t.Errorf("config check errors:\n%s", errs)
			}
			checkProducerWarnings(t, exp, rep.Problems.Filter(diag.SeverityWarning))
			if err := a.Init(context.Background(), initOpts()); err != nil {
				t.Errorf("the node does not boot: %v", err)
			}
		})
	}
}

// checkProducerWarnings requires exactly the allowed warnings.
func checkProducerWarnings(t *testing.T, exp producerExpectation, warnings diag.List) {
	t.Helper()
	for _, w := range warnings {
		allowed := false
		for _, a := range exp.warnings {
			allowed = allowed || strings.Contains(w.String(), a.substring)
		}
		if !allowed {
			t.Errorf("warning not in the expect file: %s", w)
		}
	}
	for _, a := range exp.warnings {
		found := false
		for _, w := range warnings {
			found = found || strings.Contains(w.String(), a.substring)
		}
		if !found {
			t.Errorf("expected warning %q not reported", a.substring)
		}
		doc, err := os.ReadFile(filepath.Join("../../..", a.doc))
		if err != nil || !strings.Contains(string(doc), a.phrase) {
			t.Errorf("warning %q: %s does not explain it (%q): %v", a.substring, a.doc, a.phrase, err)
		}
	}
	if exp.check == "pass" && len(exp.warnings) > 0 {
		t.Errorf("check: pass allows no warnings")
	}
}

func readProducerExpectation(t *testing.T, dir string) producerExpectation {
	t.Helper()
	var exp producerExpectation
	for _, line := range strings.Split(string(golden.Read(t, filepath.Join(dir, "expect"))), "\n") {
		key, value, _ := strings.Cut(line, ": ")
		switch key {
		case "check":
			exp.check = value
		case "warning":
			parts := strings.Split(value, " | ")
			if len(parts) != 3 {
				t.Fatalf("expect: %q: want SUBSTRING | DOC | PHRASE", line)
			}
			exp.warnings = append(exp.warnings, allowedWarning{parts[0], parts[1], parts[2]})
		}
	}
	if exp.check != "pass" && exp.check != "warn" {
		t.Fatalf("expect: check is %q, want pass or warn", exp.check)
	}
	return exp
}
