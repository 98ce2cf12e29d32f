package bootstrapsh

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// FuzzParseScript checks that ParseScript never panics (an internal panic
// would surface as an "internal error" problem), is deterministic, and
// only reports lines inside the document.
func FuzzParseScript(f *testing.F) {
	seeds, err := filepath.Glob("testdata/*/user-data")
	if err != nil {
		f.Fatal(err)
	}
	malformed, err := filepath.Glob("testdata/malformed/*.sh")
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range append(seeds, malformed...) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{"", "$", "${", "$((", "<<", "a=(", "((", "[[", "case x in", "f(){", "'", `"\`, "/etc/eks/bootstrap.sh ${a:-${b:-$(c)}}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParseScript(t, data)
		// Scripts that never name bootstrap.sh are not parsed at all:
		// make sure the parser and the interpreter see every input too.
		checkParseScript(t, append([]byte(bootstrapPath+" "), data...))
	})
}

// checkParseScript runs ParseScript twice on data and checks the results.
func checkParseScript(t *testing.T, data []byte) {
	t.Helper()
	doc := userdata.Document{Source: diag.Source{URI: "fuzz", Line: 5}, Format: userdata.FormatShell, Data: data}
	res1, probs1 := ParseScript(doc)
	res2, probs2 := ParseScript(doc)
	if !reflect.DeepEqual(res1, res2) || !reflect.DeepEqual(probs1, probs2) {
		t.Fatalf("not deterministic")
	}
	lastLine := 5 + strings.Count(string(data), "\n")
	for _, p := range probs1 {
		if strings.Contains(p.Message, "internal error") {
			t.Fatalf("panic: %s", p)
		}
		if p.Position.Line != 0 && (p.Position.Line < 5 || p.Position.Line > lastLine) {
			t.Errorf("problem outside the document (lines 5..%d): %s", lastLine, p)
		}
	}
	if len(probs1) > diag.MaxProblems+1 {
		t.Errorf("%d problems", len(probs1))
	}
	if !res1.Found && (res1.Spec.Cluster.Name != "" || len(res1.Args) > 0) {
		t.Errorf("no call found, but a result: %+v", res1)
	}
}

// FuzzKubeletExtraArgs checks that the tokenizer never panics, and that
// quoting its words and splitting them again gives the same words.
func FuzzKubeletExtraArgs(f *testing.F) {
	for _, s := range []string{"", `--node-labels="a=b" --v 2`, `'x'"y"\z`, `"\`, `'`, "a\tb\nc", `--k="a\"b"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := KubeletExtraArgs(s)
		again, err2 := KubeletExtraArgs(s)
		if !reflect.DeepEqual(words, again) || (err == nil) != (err2 == nil) {
			t.Fatalf("not deterministic")
		}
		if err != nil {
			return
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		round, err := KubeletExtraArgs(strings.Join(quoted, " "))
		if err != nil || !reflect.DeepEqual(round, words) {
			t.Fatalf("round trip of %q: got %q, %v", words, round, err)
		}
	})
}
