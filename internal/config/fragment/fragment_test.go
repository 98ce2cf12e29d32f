package fragment

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/maxpods"
	"github.com/nodeboot/nodeboot/internal/config/maxpods/celexpr"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// TestCheckExpressions: a bad kubelet.maxPodsExpression is reported at its
// document and line with the evaluator's reason; good ones and documents
// without one report nothing; without an evaluator an expression is an
// error, never silently accepted.
func TestCheckExpressions(t *testing.T) {
	const head = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: c\n  kubelet:\n"
	bad, err := os.ReadFile("testdata/bad-max-pods-expression.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		data     string
		ev       maxpods.Evaluator
		wantLine int
		wantMsg  string
	}{
		{name: "syntax error", data: string(bad), ev: celexpr.Evaluator{}, wantLine: 7, wantMsg: "Syntax error"},
		{name: "unknown variable", data: head + "    maxPodsExpression: enis + 1\n", ev: celexpr.Evaluator{}, wantLine: 7, wantMsg: "undeclared reference to 'enis'"},
		{name: "bool result", data: head + "    maxPodsExpression: max_pods > 2\n", ev: celexpr.Evaluator{}, wantLine: 7, wantMsg: "want int"},
		{name: "good expression", data: head + "    maxPodsExpression: ((default_enis - 1) * (ips_per_eni - 1)) + 2\n", ev: celexpr.Evaluator{}},
		{name: "no expression", data: head + "    flags: [--v=2]\n"},
		{name: "no evaluator", data: head + "    maxPodsExpression: max_pods\n", wantLine: 7, wantMsg: maxpods.ErrNoEvaluator.Error()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := userdata.Document{Source: diag.Source{URI: "file:///nc.yaml"}, Format: userdata.FormatNodeConfig, Data: []byte(tc.data)}
			frags, problems := Decode(doc)
			if problems.HasErrors() {
				t.Fatalf("decoding: %v", problems)
			}
			got := CheckExpressions(frags, tc.ev)
			if tc.wantMsg == "" {
				if len(got) != 0 {
					t.Fatalf("problems: %v", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("got %d problems, want 1: %v", len(got), got)
			}
			p := got[0]
			if p.Field != "spec.kubelet.maxPodsExpression" || p.Position.Line != tc.wantLine || p.Source.URI != "file:///nc.yaml" ||
				!strings.Contains(p.Message, tc.wantMsg) || !strings.Contains(p.Message, "invalid max pods expression") {
				t.Errorf("problem = %s (field %s, line %d), want field spec.kubelet.maxPodsExpression at line %d saying %q",
					p, p.Field, p.Position.Line, tc.wantLine, tc.wantMsg)
			}
			if !errors.Is(maxpods.CheckExpression(tc.ev, frags[0].Spec.Kubelet.MaxPodsExpression), maxpods.ErrBadExpression) {
				t.Error("the problem was reported for an expression CheckExpression accepts")
			}
		})
	}
}
