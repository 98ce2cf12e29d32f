package kubeletflag

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/nodeboot/nodeboot/internal/config/systemdsyntax"
)

// NormalizeItem returns a kubelet.flags item as the kubelet receives it
// when that is one --name=value flag: quotes removed the way systemd
// removes them (--node-labels="a=b" is --node-labels=a=b), and a flag and
// its value separated by blanks joined (--node-labels "a=b" is
// --node-labels=a=b, as the kubelet's flag parser reads the two words,
// whatever the second looks like). An
// item that would make anything else (a stray word, a second flag, a
// boolean flag followed by a word) is returned unchanged, for NotOneWord
// and validation to refuse.
func NormalizeItem(item string) string {
	words, err := SystemdWords(item)
	if err != nil {
		return item
	}
	switch {
	case len(words) == 1:
		return words[0]
	case len(words) == 2 && takesSeparateValue(words[0]):
		return words[0] + "=" + words[1]
	}
	return item
}

// takesSeparateValue reports a word "--name" after which the kubelet's
// flag parser takes the next word as the value.
func takesSeparateValue(word string) bool {
	name, ok := strings.CutPrefix(word, "--")
	return ok && name != "" && !strings.HasPrefix(name, "-") && !strings.Contains(name, "=") && !IsBool(name)
}

// NotOneWord says why a flag would not reach the kubelet as one word
// exactly as written, or "".
func NotOneWord(flag string) string {
	if flag == "" {
		return "is empty"
	}
	if _, err := SystemdWords(flag); errors.Is(err, ErrUnterminatedQuote) {
		return "has a quote that is never closed"
	}
	for _, r := range flag {
		switch {
		case unicode.IsSpace(r):
			return fmt.Sprintf("contains a blank (%U): systemd splits the kubelet's command line at blanks, so give each flag as its own list item, --name=value with no blank in the value", r)
		case unicode.IsControl(r):
			return fmt.Sprintf("contains the control character %U", r)
		case r == '"' || r == '\'' || r == '\\':
			return fmt.Sprintf("contains %q, which systemd takes as quoting on the kubelet's command line: flag values cannot hold it", r)
		}
	}
	return ""
}

// Unquote removes one pair of quotes around a flag's whole value, as
// in --node-labels="a=b,c=d" (Karpenter writes labels this way). On
// nodeadm nodes systemd's EnvironmentFile parser drops such quotes, so the
// kubelet sees the bare value; rendering it bare gives the same result
// without relying on that parser.
func Unquote(arg string) string {
	name, value, ok := strings.Cut(arg, "=")
	if !ok || len(value) < 2 {
		return arg
	}
	q := value[0]
	if (q != '"' && q != '\'') || value[len(value)-1] != q {
		return arg
	}
	inner := value[1 : len(value)-1]
	if strings.ContainsAny(inner, "\"'\\") {
		return arg
	}
	return name + "=" + inner
}

// Errors returned (wrapped) by SystemdWords.
var (
	// ErrUnterminatedQuote means a ' or " is never closed.
	ErrUnterminatedQuote = systemdsyntax.ErrUnterminatedQuote
	// ErrDanglingBackslash means the text ends with a lone backslash.
	ErrDanglingBackslash = systemdsyntax.ErrDanglingBackslash
)

// SystemdWords splits NODEADM_KUBELET_ARGS into the words the kubelet
// receives: systemd expands an unquoted $VARIABLE of ExecStart this way
// (systemdsyntax.SplitUnquoted).
func SystemdWords(s string) ([]string, error) { return systemdsyntax.SplitUnquoted(s) }

// SeveralFlags returns the words systemd splits a kubelet.flags item into
// when that is more than one word and every word is a flag that reaches the
// kubelet as written (--v=2 --node-labels=a=b; a flag without =value only
// when it is a boolean): nodeadm puts the item on
// the kubelet's command line as it is, so those words are what the kubelet
// gets. Otherwise it returns nil.
func SeveralFlags(item string) []string {
	words, err := SystemdWords(item)
	if err != nil || len(words) < 2 || strings.ContainsAny(item, "\"'\\") {
		return nil
	}
	for _, w := range words {
		name, _, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
		// A flag without =value takes the next word as its value unless
		// it is a boolean flag: --node-labels --v=9 is one flag.
		if !strings.HasPrefix(w, "-") || NotOneWord(w) != "" || (!hasValue && !IsBool(name)) {
			return nil
		}
	}
	return words
}

// IsShorthand reports a flag with one dash and a one-letter name (-v=2):
// the kubelet's flag parser takes the Go flags it adopts (klog's v) as
// shorthands, so nodeadm nodes run with it.
func IsShorthand(flag string) bool {
	name, _, _ := strings.Cut(strings.TrimPrefix(flag, "-"), "=")
	return strings.HasPrefix(flag, "-") && !strings.HasPrefix(flag, "--") && len(name) == 1 && NotOneWord(flag) == ""
}
