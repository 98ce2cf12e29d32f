package systemdsyntax

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestParseEnvironmentFile pins systemd's environment file parser
// (src/basic/env-file.c), case by case.
func TestParseEnvironmentFile(t *testing.T) {
	tests := []struct {
		name, data string
		want       map[string]string
	}{
		{name: "plain", data: "A=1\nB=two words\n", want: map[string]string{"A": "1", "B": "two words"}},
		{name: "comments and blank lines", data: "# c\n; c\n\n  A=1\n", want: map[string]string{"A": "1"}},
		{name: "blanks around key and value", data: "  A  =  x y  \n", want: map[string]string{"A": "x y"}},
		{name: "double quoted, escapes of the shell undone", data: `A="a \"b\" \$c \\ d"` + "\n", want: map[string]string{"A": `a "b" $c \ d`}},
		{name: "double quoted, other backslashes kept", data: `A="two\nwords"` + "\n", want: map[string]string{"A": `two\nwords`}},
		{name: "single quoted is literal", data: `A='single $NOT \n'` + "\n", want: map[string]string{"A": `single $NOT \n`}},
		{name: "quoted pieces join", data: `A="a" 'b'c` + "\n", want: map[string]string{"A": "abc"}},
		{name: "quotes inside a bare value are kept", data: `NODEADM_KUBELET_ARGS=--a=1 --b="x y"` + "\n", want: map[string]string{"NODEADM_KUBELET_ARGS": `--a=1 --b="x y"`}},
		{name: "backslash-newline joins lines", data: "A=con\\\ntinued\n", want: map[string]string{"A": "continued"}},
		{name: "bare backslash takes the next character", data: `A=a\ b\"c` + "\n", want: map[string]string{"A": `a b"c`}},
		{name: "single quotes span lines", data: "A='one\ntwo'\n", want: map[string]string{"A": "one\ntwo"}},
		{name: "a key without = is ignored", data: "E\nA=1\n", want: map[string]string{"A": "1"}},
		{name: "an invalid name is ignored", data: "bad key=1\n9A=1\nA=1\n", want: map[string]string{"A": "1"}},
		{name: "the last line needs no newline", data: "A=1", want: map[string]string{"A": "1"}},
		{name: "empty value", data: "A=\n", want: map[string]string{"A": ""}},
		{name: "later assignments win", data: "A=1\nA=2\n", want: map[string]string{"A": "2"}},
		{name: "a comment's trailing backslash does not continue it", data: "# c \\\nA=1\n", want: map[string]string{"A": "1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ParseEnvironmentFile([]byte(tc.data)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseEnvironmentFile(%q) = %q, want %q", tc.data, got, tc.want)
			}
		})
	}
}

// FuzzParseEnvironmentFile: any environment file parses without panicking, into
// names without blanks or "=".
func FuzzParseEnvironmentFile(f *testing.F) {
	f.Add([]byte("HTTPS_PROXY=http://p:3128\nNO_PROXY=\"a,b\"\n"))
	f.Add([]byte("A=\\\n\\\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for k := range ParseEnvironmentFile(data) {
			if k == "" || strings.ContainsAny(k, " \t=") {
				t.Fatalf("name %q", k)
			}
		}
	})
}

func TestAssignmentWords(t *testing.T) {
	got := AssignmentWords(`"A=1 2" 'B=x' C=plain "D=q\"uote\\" "E=100%%"`)
	want := []string{"A=1 2", "B=x", "C=plain", `D=q"uote\`, "E=100%"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("AssignmentWords = %q, want %q", got, want)
	}
}

// FuzzAssignmentWords checks the parser of systemd Environment= values read
// from node files: it never panics, a value of bare words splits on
// blanks, and a double-quoted word comes back whole, escapes undone.
func FuzzAssignmentWords(f *testing.F) {
	for _, seed := range []string{`A=1`, `"A=1 2" B=x`, `'unterminated`, `"back\\slash\"`, "100%%", ""} {
		f.Add(seed, "HTTPS_PROXY=http://proxy:3128")
	}
	f.Fuzz(func(t *testing.T, value, word string) {
		got := AssignmentWords(value)
		blank := func(r rune) bool { return r == ' ' || r == '\t' }
		if bare := strings.FieldsFunc(value, blank); !strings.ContainsAny(value, "\"'%") && !slices.Equal(got, bare) {
			t.Fatalf("AssignmentWords(%q) = %q, want %q", value, got, bare)
		}
		if strings.Contains(word, "%") {
			return // %% is systemd's escape for %; a lone % is a specifier
		}
		quoted := `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(word) + `"`
		if got := AssignmentWords(quoted + " X=1"); !reflect.DeepEqual(got, []string{word, "X=1"}) {
			t.Fatalf("AssignmentWords(%q) = %q, want %q", quoted, got, []string{word, "X=1"})
		}
	})
}

// TestSystemdWords checks the splitting rules and the round trip through
// quoting.
func TestSplitUnquoted(t *testing.T) {
	words, err := SplitUnquoted(`a 'b c' "d \"e\" \$f \x" g\ h ""`)
	if err != nil || !slices.Equal(words, []string{"a", "b c", `d "e" $f \x`, "g h", ""}) {
		t.Fatalf("SplitUnquoted = %q, %v", words, err)
	}
	if _, err := SplitUnquoted(`a "b`); !errors.Is(err, ErrUnterminatedQuote) {
		t.Errorf("unterminated: %v", err)
	}
	if _, err := SplitUnquoted(`a\`); !errors.Is(err, ErrDanglingBackslash) {
		t.Errorf("dangling: %v", err)
	}
}

// FuzzQuoteValueRoundTrip: an assignment written with QuoteValue, as the
// renderer writes Environment= lines, never ends early or breaks the line,
// and reads back (AssignmentWords) as the same variable.
func FuzzQuoteValueRoundTrip(f *testing.F) {
	for _, s := range []string{"http://proxy:3128", `a"b\c`, "100%", "tab\there\nnewline", "\x00\x1f\x7f", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		quoted := QuoteValue(v)
		if strings.ContainsAny(quoted, "\n\r") || strings.Count(quoted, "%")%2 != 0 {
			t.Fatalf("QuoteValue(%q) = %q: a raw line break or a lone percent sign", v, quoted)
		}
		line := `"HTTPS_PROXY=` + quoted + `"`
		want := "HTTPS_PROXY=" + strings.ToValidUTF8(v, "\uFFFD")
		if got := AssignmentWords(line); utf8.ValidString(v) && (len(got) != 1 || got[0] != want) {
			t.Fatalf("AssignmentWords(%q) = %q, want [%q]", line, got, want)
		}
	})
}
