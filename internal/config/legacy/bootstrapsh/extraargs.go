package bootstrapsh

import (
	"fmt"
	"strings"
)

// KubeletExtraArgs splits the value of --kubelet-extra-args into words the
// way the kubelet receives them: bootstrap.sh writes the value into a
// systemd drop-in as KUBELET_EXTRA_ARGS, and systemd splits $KUBELET_EXTRA_ARGS
// on blanks, removing quotes. Single quotes keep everything literally;
// inside double quotes a backslash escapes " \ $ and `; outside quotes it
// escapes any character. An empty quoted string is a word of its own.
// Nothing is expanded.
//
// Errors wrap ErrUnterminatedQuote or ErrDanglingBackslash.
func KubeletExtraArgs(s string) ([]string, error) {
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
