package bootstrapsh

import (
	"errors"
	"slices"
	"testing"
)

func TestKubeletExtraArgs(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{name: "empty", input: "", want: nil},
		{name: "blanks only", input: " \t\n ", want: nil},
		{name: "plain words", input: "  --v=2\t--max-pods=29\n--cpu-cfs-quota ", want: []string{"--v=2", "--max-pods=29", "--cpu-cfs-quota"}},
		{name: "double quotes", input: `--node-labels="a=1,b=2" --eviction-hard="memory.available<5%"`, want: []string{"--node-labels=a=1,b=2", "--eviction-hard=memory.available<5%"}},
		{name: "single quotes keep backslashes", input: `--x='a\"b' '--y=c d'`, want: []string{`--x=a\"b`, "--y=c d"}},
		{name: "escapes in double quotes", input: `"a\"b\\c\$d\e"`, want: []string{`a"b\c$d\e`}},
		{name: "escape outside quotes", input: `a\ b \'`, want: []string{"a b", "'"}},
		{name: "empty quoted word", input: `--a "" ''`, want: []string{"--a", "", ""}},
		{name: "quotes glued", input: `--k="x"'y'z`, want: []string{"--k=xyz"}},
		{name: "no expansion", input: `--root-dir=$HOME/$(id)`, want: []string{"--root-dir=$HOME/$(id)"}},
		{name: "CRLF", input: "--a=1\r\n--b=2\r\n", want: []string{"--a=1", "--b=2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := KubeletExtraArgs(tc.input)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("KubeletExtraArgs(%q) = %q, want %q", tc.input, got, tc.want)
			}
		})
	}
}

func TestKubeletExtraArgsErrors(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  error
	}{
		{name: "open single quote", input: `--node-labels='a=b`, want: ErrUnterminatedQuote},
		{name: "open double quote", input: `--node-labels="a=b`, want: ErrUnterminatedQuote},
		{name: "escaped closing quote", input: `"a\"`, want: ErrUnterminatedQuote},
		{name: "trailing backslash", input: `--v=2 \`, want: ErrDanglingBackslash},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := KubeletExtraArgs(tc.input)
			if !errors.Is(err, tc.want) || got != nil {
				t.Errorf("KubeletExtraArgs(%q) = %q, %v; want error %v", tc.input, got, err, tc.want)
			}
		})
	}
}
