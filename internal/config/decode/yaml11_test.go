package decode

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// TestReadsAsNodeadm checks that node.eks.aws documents are read as
// nodeadm's YAML 1.1 reader reads them, each such reading a StrictOnly
// problem (init boots, warning; config check refuses), and that
// nodeboot.io documents still get errors. The oracle's hand-written cases
// (test/oracle/handwritten_cases_test.go) run the same inputs through the
// real nodeadm.
func TestReadsAsNodeadm(t *testing.T) {
	config := func(s hub.Spec) any { return s.Kubelet.Config }
	cases := []struct {
		name, input string
		view        func(hub.Spec) any
		want        string // view as JSON
		warnings    int    // StrictOnly problems; no other problem allowed
	}{
		{name: "yes and no in kubelet.config", input: eks + "  kubelet:\n    config:\n      serializeImagePulls: no\n      failSwapOn: Yes\n      featureGates: {A: on, B: OFF}\n",
			view: config, want: `{"failSwapOn":true,"featureGates":{"A":true,"B":false},"serializeImagePulls":false}`, warnings: 4},
		{name: "quoted yes stays text", input: eks + "  kubelet:\n    config:\n      providerID: \"yes\"\n",
			view: config, want: `{"providerID":"yes"}`},
		{name: "whole float for an integer", input: eks + "  kubelet:\n    config:\n      maxPods: 30.0\n",
			view: config, want: `{"maxPods":30}`, warnings: 1},
		{name: "unknown kubelet field passed through", input: eks + "  kubelet:\n    config:\n      fooBar: 1\n      nested: {deep: [1, {a: b}]}\n",
			view: config, want: `{"fooBar":1,"nested":{"deep":[1,{"a":"b"}]}}`, warnings: 2},
		{name: "enableOutpost yes", input: eks + "  cluster:\n    id: x\n    enableOutpost: yes\n",
			view: func(s hub.Spec) any { return s.Cluster.EnableOutpost }, want: `true`, warnings: 1},
		{name: "duplicate key: the last counts", input: eks + "  cluster:\n    name: a\n    id: x\n    name: b\n",
			view: func(s hub.Spec) any { return s.Cluster.Name }, want: `"b"`, warnings: 1},
		{name: "merge key", input: eks + "  kubelet:\n    config:\n      kubeReserved: &r {cpu: 100m}\n      systemReserved:\n        <<: *r\n        memory: 200Mi\n",
			view: config, want: `{"kubeReserved":{"cpu":"100m"},"systemReserved":{"cpu":"100m","memory":"200Mi"}}`, warnings: 1},
		{name: "merge key after a key overrides it, as go-yaml v2 does", input: eks + "  cluster:\n    name: a\n    <<: {name: b, id: x}\n",
			view: func(s hub.Spec) any { return s.Cluster.Name + "/" + s.Cluster.ID }, want: `"b/x"`, warnings: 1},
		{name: "merge of a list: earlier mappings win", input: eks + "  cluster:\n    <<: [{name: a}, {name: b, id: x}]\n",
			view: func(s hub.Spec) any { return s.Cluster.Name + "/" + s.Cluster.ID }, want: `"a/x"`, warnings: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, problems := decodeString(c.input)
			if len(got) != 1 {
				t.Fatalf("got %d documents:\n%s", len(got), renderProblems(problems))
			}
			if n := countStrictOnly(problems); n != c.warnings || len(problems) != n {
				t.Errorf("want %d StrictOnly problems and no other, got:\n%s", c.warnings, renderProblems(problems))
			}
			b, err := json.Marshal(c.view(got[0].Spec))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != c.want {
				t.Errorf("got %s, want %s", b, c.want)
			}
		})
	}
}

// TestYAML11BooleanForAString: nodeadm reads a plain yes as a boolean, so
// it refuses it for a string field (and writes it into kubelet.config as a
// boolean, which the kubelet refuses): an error, quoted it is text.
func TestYAML11BooleanForAString(t *testing.T) {
	for name, input := range map[string]string{
		"cluster name":         eks + "  cluster:\n    name: yes\n",
		"environment value":    eks + "  instance:\n    environment:\n      default: {A: on}\n",
		"kubelet string field": eks + "  kubelet:\n    config:\n      providerID: yes\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, problems := decodeString(input)
			if !problems.HasErrors() || countStrictOnly(problems) != 0 || !strings.Contains(renderProblems(problems), "YAML 1.1 reader takes as true") {
				t.Errorf("want an error that is not StrictOnly:\n%s", renderProblems(problems))
			}
		})
	}
	if _, problems := decodeString(eks + "  cluster:\n    name: \"yes\"\n"); len(problems) != 0 {
		t.Errorf("quoted yes is text:\n%s", renderProblems(problems))
	}
}

// TestNodebootDocumentsStayStrict: a nodeboot.io document is read by
// YAML 1.2, its own rules: YAML 1.1 readings are errors there.
func TestNodebootDocumentsStayStrict(t *testing.T) {
	for name, input := range map[string]string{
		"yes":       nb + "  maxPods: {prefixDelegation: yes}\n",
		"duplicate": nb + "  cluster:\n    name: a\n    name: b\n",
		"merge":     nb + "  cluster:\n    <<: {name: a}\n",
		"float":     nb + "  maxPods:\n    maxENIs: 2.0\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, problems := decodeString(input)
			if !problems.HasErrors() || countStrictOnly(problems) != 0 {
				t.Errorf("want errors, none StrictOnly:\n%s", renderProblems(problems))
			}
		})
	}
}

func countStrictOnly(l diag.List) int {
	n := 0
	for _, p := range l {
		if p.StrictOnly {
			n++
		}
	}
	return n
}

// TestDocumentsOfOnePart: nodeadm reads only the first YAML document of a
// part. nodeboot merges them all (docs/user-data.md), warning when a later
// one is node.eks.aws too, and boots (StrictOnly) from the documents
// before a syntax error that follows a node.eks.aws document.
func TestDocumentsOfOnePart(t *testing.T) {
	tests := []struct {
		name, input string
		docs        int
		warnings    int // severity warning
		strictOnly  int
		errors      int // other errors
	}{
		{name: "two node.eks.aws documents", input: eks + "  cluster: {name: a}\n---\n" + eks + "  kubelet: {flags: [--v=5]}\n", docs: 2, warnings: 1},
		{name: "node.eks.aws then a nodeboot extension", input: eks + "  cluster: {name: a}\n---\n" + nb + "  maxPods: {maxENIs: 2}\n", docs: 2},
		{name: "syntax error after a node.eks.aws document", input: eks + "  cluster: {name: a}\n---\n" + eks + "  kubelet: [\n", docs: 1, strictOnly: 1},
		{name: "syntax error after a nodeboot document", input: nb + "  cluster: {name: a}\n---\n" + nb + "  kubelet: [\n", docs: 1, errors: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, problems := decodeString(tc.input)
			warnings, strict, errs := 0, 0, 0
			for _, p := range problems {
				switch {
				case p.Severity == diag.SeverityWarning:
					warnings++
				case p.StrictOnly:
					strict++
				default:
					errs++
				}
			}
			if len(got) != tc.docs || warnings != tc.warnings || strict != tc.strictOnly || errs != tc.errors {
				t.Errorf("%d documents, %d warnings, %d StrictOnly, %d errors; want %d, %d, %d, %d:\n%s",
					len(got), warnings, strict, errs, tc.docs, tc.warnings, tc.strictOnly, tc.errors, renderProblems(problems))
			}
		})
	}
}

// TestTrailingTextIsNoLaterDocument: text after a JSON document's end is
// a syntax error of that document (nodeadm refuses it), not a later one.
func TestTrailingTextIsNoLaterDocument(t *testing.T) {
	_, problems := decodeString(`{"apiVersion":"node.eks.aws/v1alpha1","kind":"NodeConfig","spec":{}} xx`)
	if !problems.HasErrors() || countStrictOnly(problems) != 0 {
		t.Errorf("want an error, not StrictOnly:\n%s", renderProblems(problems))
	}
}
