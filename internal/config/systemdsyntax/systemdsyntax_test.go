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

// TestUnitWords pins how systemd (252, read off `systemd --test`; the
// oracle test TestUnitEnvironmentReadsAsSystemd runs it) splits
// Environment= values.
func TestUnitWords(t *testing.T) {
	cases := []struct {
		name, value string
		want        []string
		err         error
	}{
		{name: "quoted, bare and escaped", value: `"A=1 2" 'B=x' C=plain "D=q\"uote\\"`, want: []string{"A=1 2", "B=x", "C=plain", `D=q"uote\`}},
		{name: "quotes mid-word", value: `Q3=mid"dle quo"ted`, want: []string{"Q3=middle quoted"}},
		{name: "C escapes in single quotes too", value: `Q1='single \x41 \t'`, want: []string{"Q1=single A \t"}},
		{name: "escapes: \\s, octal, \\u", value: `"Q2=dq \s \101 \u00e9" Q4=a\tb`, want: []string{"Q2=dq   A é", "Q4=a\tb"}},
		{name: "escaped blank is no escape", value: `F=a\ b G=1`, err: ErrInvalidEscape},
		{name: "unknown escape drops the rest", value: `Q6=before Q7=\q Q8=after`, want: []string{"Q6=before"}, err: ErrInvalidEscape},
		{name: "NUL refused", value: `Q10=\x00 Q11=ok`, err: ErrInvalidEscape},
		{name: "unterminated quote", value: `Q5="unterminated`, err: ErrUnterminatedQuote},
		{name: "trailing backslash", value: `A=1 B=\`, want: []string{"A=1"}, err: ErrDanglingBackslash},
		{name: "hex digits b, B and o-less octal", value: `S=\x3b\x2B\073`, want: []string{"S=;+;"}},
		{name: "percent untouched here", value: `E=p%40ss C=%%x`, want: []string{"E=p%40ss", "C=%%x"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := UnitWords(tc.value)
			if !reflect.DeepEqual(got, tc.want) || !errors.Is(err, tc.err) {
				t.Errorf("UnitWords(%q) = %q, %v; want %q, %v", tc.value, got, err, tc.want, tc.err)
			}
		})
	}
}

// TestExpandSpecifiers pins systemd's specifier rules on values.
func TestExpandSpecifiers(t *testing.T) {
	resolve := func(c byte) (string, bool) { v, ok := map[byte]string{'n': "kubelet.service"}[c]; return v, ok }
	cases := []struct{ name, in, want string }{
		{name: "%% is %", in: "C=%%x", want: "C=%x"},
		{name: "known", in: "D=%n", want: "D=kubelet.service"},
		{name: "known, not resolved here", in: "H=%H", want: "H=%H"},
		{name: "punctuation stays", in: "P=%-%.%!", want: "P=%-%.%!"},
		{name: "at the end", in: "T=100%", want: "T=100%"},
		{name: "percent-encoded password", in: "HTTPS_PROXY=http://u:p%40ss@proxy:3128", want: "error"},
		{name: "unknown letter", in: "X=%x", want: "error"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ExpandSpecifiers(tc.in, resolve)
			if err != nil {
				got = "error"
				if !errors.Is(err, ErrUnknownSpecifier) {
					t.Errorf("error %v is not ErrUnknownSpecifier", err)
				}
			}
			if got != tc.want {
				t.Errorf("ExpandSpecifiers(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// FuzzUnitWords checks the parser of systemd Environment= values read
// from node files: it never panics, a value of bare words splits on
// blanks, and a word quoted by QuoteValue comes back whole.
func FuzzUnitWords(f *testing.F) {
	for _, seed := range []string{`A=1`, `"A=1 2" B=x`, `'unterminated`, `"back\\slash\"`, `\x41\u00e9\101`, "100%%", ""} {
		f.Add(seed, "HTTPS_PROXY=http://proxy:3128")
	}
	f.Fuzz(func(t *testing.T, value, word string) {
		got, err := UnitWords(value)
		blank := func(r rune) bool { return strings.ContainsRune(" \t\n\r", r) }
		if bare := strings.FieldsFunc(value, blank); !strings.ContainsAny(value, "\"'\\") && (err != nil || !slices.Equal(got, bare)) {
			t.Fatalf("UnitWords(%q) = %q, %v; want %q", value, got, err, bare)
		}
		if strings.ContainsRune(word, 0) || !utf8.ValidString(word) {
			return
		}
		quoted := `"` + QuoteValue(word) + `"`
		got, err = UnitWords(quoted + " X=1")
		if err != nil || len(got) != 2 || got[1] != "X=1" {
			t.Fatalf("UnitWords(%q) = %q, %v", quoted, got, err)
		}
		if back, err := ExpandSpecifiers(got[0], func(byte) (string, bool) { return "", false }); err != nil || back != word {
			t.Fatalf("QuoteValue(%q) reads back as %q, %v", word, back, err)
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
		if !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
			return // systemd refuses invalid UTF-8 and NUL in values
		}
		got, err := UnitWords(line)
		if err == nil && len(got) == 1 {
			got[0], err = ExpandSpecifiers(got[0], func(byte) (string, bool) { return "", false })
		}
		if err != nil || len(got) != 1 || got[0] != want {
			t.Fatalf("UnitWords(%q) = %q, %v; want [%q]", line, got, err, want)
		}
	})
}
