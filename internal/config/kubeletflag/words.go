package kubeletflag

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Errors returned (wrapped) by SystemdWords.
var (
	// ErrUnterminatedQuote means a ' or " is never closed.
	ErrUnterminatedQuote = errors.New("unterminated quote")
	// ErrDanglingBackslash means the text ends with a lone backslash.
	ErrDanglingBackslash = errors.New("dangling backslash")
)

// SystemdWords splits s the way systemd splits an unquoted $VARIABLE on a
// command line: on blanks, removing quotes. Single quotes keep everything
// literally; inside double quotes a backslash escapes " \ $ and `; outside
// quotes it escapes any character. An empty quoted string is a word of
// its own. Nothing is expanded. Errors wrap ErrUnterminatedQuote or
// ErrDanglingBackslash.
func SystemdWords(s string) ([]string, error) {
	var (
		out     []string
		cur     strings.Builder
		started bool
	)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', '\r':
			if started {
				out = append(out, cur.String())
				cur.Reset()
				started = false
			}
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("%w: the ' at byte %d is never closed", ErrUnterminatedQuote, i)
			}
			cur.WriteString(s[i+1 : i+1+end])
			started = true
			i += end + 1
		case '"':
			next, err := readDoubleQuoted(s, i, &cur)
			if err != nil {
				return nil, err
			}
			started = true
			i = next
		case '\\':
			if i+1 >= len(s) {
				return nil, fmt.Errorf("%w: the value ends with a backslash", ErrDanglingBackslash)
			}
			i++
			cur.WriteByte(s[i])
			started = true
		default:
			cur.WriteByte(c)
			started = true
		}
	}
	if started {
		out = append(out, cur.String())
	}
	return out, nil
}

// readDoubleQuoted copies the content of the "…" starting at s[open] and
// returns the index of the closing quote.
func readDoubleQuoted(s string, open int, cur *strings.Builder) (int, error) {
	for i := open + 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i, nil
		case c == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0:
			i++
			cur.WriteByte(s[i])
		default:
			cur.WriteByte(c)
		}
	}
	return 0, fmt.Errorf("%w: the \" at byte %d is never closed", ErrUnterminatedQuote, open)
}

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
