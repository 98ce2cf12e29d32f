package tomlsyntax

import (
	"testing"

	"github.com/pelletier/go-toml/v2"
)

func TestQuoteKey(t *testing.T) {
	tests := []struct {
		name, key, want string
	}{
		{name: "bare", key: "node-labels", want: "node-labels"},
		{name: "underscore and digits", key: "max_pods2", want: "max_pods2"},
		{name: "dot", key: "eks.amazonaws.com/nodegroup", want: `"eks.amazonaws.com/nodegroup"`},
		{name: "empty", key: "", want: `""`},
		{name: "quote and backslash", key: `a"b\c`, want: `"a\"b\\c"`},
		{name: "control characters", key: "a\tb\nc\x01\x7f", want: `"a\tb\nc\u0001\u007F"`},
		{name: "unicode stays", key: "é", want: `"é"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := QuoteKey(tc.key); got != tc.want {
				t.Errorf("QuoteKey(%q) = %s, want %s", tc.key, got, tc.want)
			}
		})
	}
}

// FuzzQuoteString checks against go-toml that a quoted string reads back as
// the original, as a value and as a key. TOML text is UTF-8, so each byte of
// an invalid sequence reads back as U+FFFD.
func FuzzQuoteString(f *testing.F) {
	for _, s := range []string{"", "plain", `a"b`, "tab\there", "\x00\x1f\x7f", "ünï"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var doc map[string]string
		if err := toml.Unmarshal([]byte(QuoteKey(s)+" = "+QuoteString(s)+"\n"), &doc); err != nil {
			t.Fatalf("go-toml refuses %s = %s: %v", QuoteKey(s), QuoteString(s), err)
		}
		want := string([]rune(s))
		if got, ok := doc[want]; !ok || got != want {
			t.Fatalf("read back %q, want key and value %q", doc, want)
		}
	})
}
