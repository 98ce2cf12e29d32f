// Package systemdsyntax holds the systemd syntax rules the agent's node
// files go through: the words of an unquoted $VARIABLE on a command line
// (the kubelet's NODEADM_KUBELET_ARGS), the values of unit file
// assignments (Environment=, EnvironmentFile=), and environment files. The
// renderers, the doctor, the kubelet-flag rules and the tests' node readers
// all use it. Written by hand: go-systemd parses unit files into
// assignments but not their values, nor environment files, and
// dotenv-style parsers expand $VARS, which systemd does not.
package systemdsyntax

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Errors returned (wrapped) by SplitUnquoted.
var (
	// ErrUnterminatedQuote means a ' or " is never closed.
	ErrUnterminatedQuote = errors.New("unterminated quote")
	// ErrDanglingBackslash means the text ends with a lone backslash.
	ErrDanglingBackslash = errors.New("dangling backslash")
)

// SplitUnquoted splits s the way systemd splits an unquoted $VARIABLE on a
// command line (ExecStart=): on blanks, removing quotes. Single quotes keep everything
// literally; inside double quotes a backslash escapes " \ $ and `; outside
// quotes it escapes any character. An empty quoted string is a word of
// its own. Nothing is expanded. Errors wrap ErrUnterminatedQuote or
// ErrDanglingBackslash.
func SplitUnquoted(s string) ([]string, error) {
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

// Errors returned (wrapped) by UnitWords and ExpandSpecifiers.
var (
	// ErrInvalidEscape means a backslash starts no escape systemd knows.
	ErrInvalidEscape = errors.New("invalid escape")
	// ErrUnknownSpecifier means a "%" precedes a letter or digit systemd
	// has no specifier for (a percent-encoded "%40" is one).
	ErrUnknownSpecifier = errors.New("unknown specifier")
)

// UnitWords splits the value of a unit file list setting such as
// Environment= or UnsetEnvironment= the way systemd's extract_first_word
// does with EXTRACT_UNQUOTE|EXTRACT_CUNESCAPE: blanks separate words; '…'
// and "…" may open anywhere in a word, and inside both, as outside, a
// backslash starts a C escape (\a \b \f \n \r \t \v \\ \" \' \s, \xNN,
// \NNN octal, \uNNNN, \UNNNNNNNN; never a NUL). It returns the words read
// before the first error and that error (ErrInvalidEscape,
// ErrUnterminatedQuote or ErrDanglingBackslash): systemd keeps the
// assignments before it and ignores the rest of the line.
func UnitWords(s string) ([]string, error) {
	var words []string
	for i := skipBlanks(s, 0); i < len(s); i = skipBlanks(s, i) {
		word, next, err := unitWord(s, i)
		if err != nil {
			return slices.Clip(words), err
		}
		words, i = append(words, word), next
	}
	return slices.Clip(words), nil
}

func skipBlanks(s string, i int) int {
	for i < len(s) && strings.IndexByte(" \t\n\r", s[i]) >= 0 {
		i++
	}
	return i
}

// unitWord reads the word starting at s[i] and returns it and the index
// after it.
func unitWord(s string, i int) (string, int, error) {
	var cur strings.Builder
	quote := byte(0)
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			n, err := cunescapeOne(s[i+1:], &cur)
			if err != nil {
				return "", i, err
			}
			i += n
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote = c
		case strings.IndexByte(" \t\n\r", c) >= 0:
			return cur.String(), i, nil
		default:
			cur.WriteByte(c)
		}
	}
	if quote != 0 {
		return "", i, fmt.Errorf("%w: a %c is never closed", ErrUnterminatedQuote, quote)
	}
	return cur.String(), i, nil
}

// cunescapeOne decodes the C escape at the start of s (what follows a
// backslash) as systemd's cunescape_one does, and returns its length.
func cunescapeOne(s string, cur *strings.Builder) (int, error) {
	if s == "" {
		return 0, fmt.Errorf("%w: the value ends with a backslash", ErrDanglingBackslash)
	}
	if i := strings.IndexByte("abfnrtv\\\"'s", s[0]); i >= 0 {
		cur.WriteByte("\a\b\f\n\r\t\v\\\"' "[i])
		return 1, nil
	}
	bad := fmt.Errorf("%w: \\%s", ErrInvalidEscape, s[:min(len(s), 3)])
	switch c := s[0]; {
	case c == 'x':
		v, err := escapeNumber(s, 1, 2, 16)
		if err != nil || v == 0 {
			return 0, bad
		}
		cur.WriteByte(byte(v))
		return 3, nil
	case c == 'u' || c == 'U':
		digits := map[byte]int{'u': 4, 'U': 8}[c]
		v, err := escapeNumber(s, 1, digits, 16)
		if err != nil || v == 0 || !utf8.ValidRune(rune(v)) {
			return 0, bad
		}
		cur.WriteRune(rune(v))
		return digits + 1, nil
	case c >= '0' && c <= '7':
		v, err := escapeNumber(s, 0, 3, 8)
		if err != nil || v == 0 || v > 255 {
			return 0, bad
		}
		cur.WriteByte(byte(v))
		return 3, nil
	}
	return 0, bad
}

// escapeNumber parses the n digits of s from offset in base.
func escapeNumber(s string, offset, n, base int) (uint64, error) {
	if len(s) < offset+n {
		return 0, strconv.ErrSyntax
	}
	digits := s[offset : offset+n]
	for i := 0; i < len(digits); i++ {
		if d := strings.IndexByte("0123456789abcdef", digits[i]|0x20); d < 0 || d >= base || digits[i] < '0' {
			return 0, strconv.ErrSyntax
		}
	}
	return strconv.ParseUint(digits, base, 32)
}

// unitSpecifiers are the letters systemd (252) expands in Environment=
// values; "%" before another letter or a digit is an error.
const unitSpecifiers = "abcdfghijlmnopqrstuvwyABCEGHIJLMNPRSTUVWY"

// ExpandSpecifiers replaces systemd's %-specifiers in s as systemd's
// specifier_printf does: "%%" is "%", a known specifier becomes
// resolve(letter) (left as it is when resolve does not know it), "%"
// before a letter or digit systemd has no specifier for is an error
// (ErrUnknownSpecifier: systemd ignores the assignment), and "%" before
// anything else, or at the end, stays.
func ExpandSpecifiers(s string, resolve func(byte) (string, bool)) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; {
		case c == '%':
			b.WriteByte('%')
		case strings.IndexByte(unitSpecifiers, c) >= 0:
			if v, ok := resolve(c); ok {
				b.WriteString(v)
			} else {
				b.WriteString(s[i-1 : i+1])
			}
		case isAlphanumeric(c):
			return "", fmt.Errorf("%w %%%c", ErrUnknownSpecifier, c)
		default:
			b.WriteString(s[i-1 : i+1])
		}
	}
	return b.String(), nil
}

func isAlphanumeric(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// ValidAssignment is systemd's test of an environment assignment
// (env_assignment_is_valid): "NAME=value" with a valid name and a value
// of valid UTF-8.
func ValidAssignment(kv string) bool {
	k, v, ok := strings.Cut(kv, "=")
	return ok && ValidName(k) && utf8.ValidString(v)
}

// QuoteValue makes s safe inside a double-quoted assignment value
// (Environment="KEY=VALUE"), so that UnitWords and ExpandSpecifiers give
// s back (a NUL byte excepted: systemd refuses it):
// backslash and double quote are escaped, control characters become C
// escapes, and % is doubled so that specifier expansion yields a literal
// percent sign.
func QuoteValue(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case '%':
			b.WriteString("%%")
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\x%02x`, r)
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ParseEnvironmentFile parses a systemd EnvironmentFile= file the way
// systemd's parser reads it: KEY=VALUE assignments, one per line; lines
// starting with "#" or ";" are comments; blanks around keys and values are
// dropped. A value may be made of quoted and bare pieces where it starts:
// inside '…' everything is literal (newlines too), inside "…" a backslash
// escapes " \ ` and $ (and drops a newline) and is kept before any other
// character; once a bare piece has started, quotes are ordinary
// characters. Outside quotes a backslash takes the next character
// literally, and a backslash at the end of a line joins the next one. Keys
// systemd would not accept as variable names are left out.
func ParseEnvironmentFile(data []byte) map[string]string {
	p := envParser{out: map[string]string{}}
	for _, c := range data {
		p.step(c)
	}
	p.end()
	return p.out
}

// envState is where the environment file parser is.
type envState int

const (
	preKey envState = iota
	inKey
	preValue
	inValue
	valueEscape
	singleQuoted
	doubleQuoted
	doubleQuotedEscape
	inComment
	commentEscape
)

// envParser is systemd's environment file state machine.
type envParser struct {
	state      envState
	key, value []byte
	// keyBlank and valueBlank are where trailing blanks start (-1: none).
	keyBlank, valueBlank int
	out                  map[string]string
}

func isBlank(c byte) bool   { return c == ' ' || c == '\t' }
func isNewline(c byte) bool { return c == '\n' || c == '\r' }

// step feeds one byte.
func (p *envParser) step(c byte) {
	switch p.state {
	case preKey, inKey:
		p.keyStep(c)
	case preValue:
		p.preValueStep(c)
	case inValue, valueEscape:
		p.valueStep(c)
	case singleQuoted:
		if c == '\'' {
			p.state = preValue
		} else {
			p.value = append(p.value, c)
		}
	case doubleQuoted, doubleQuotedEscape:
		p.doubleQuotedStep(c)
	case inComment, commentEscape:
		p.commentStep(c)
	}
}

// keyStep reads the start of a line and the key.
func (p *envParser) keyStep(c byte) {
	switch {
	case p.state == preKey && (c == '#' || c == ';'):
		p.state = inComment
	case p.state == preKey && (isBlank(c) || isNewline(c)):
	case p.state == inKey && isNewline(c):
		p.reset() // a key without "=" is ignored
	case p.state == inKey && c == '=':
		p.state, p.valueBlank = preValue, -1
	default:
		if p.state == preKey {
			p.state, p.keyBlank = inKey, -1
		}
		p.keyBlank = blankFrom(p.keyBlank, len(p.key), c)
		p.key = append(p.key, c)
	}
}

// preValueStep reads between "=" (or a closing quote) and the value.
func (p *envParser) preValueStep(c byte) {
	switch {
	case isNewline(c):
		p.push()
	case c == '\'':
		p.state = singleQuoted
	case c == '"':
		p.state = doubleQuoted
	case c == '\\':
		p.state = valueEscape
	case !isBlank(c):
		p.state = inValue
		p.value = append(p.value, c)
	}
}

// valueStep reads a bare value.
func (p *envParser) valueStep(c byte) {
	if p.state == valueEscape {
		p.state = inValue
		if !isNewline(c) {
			p.value = append(p.value, c)
		}
		return
	}
	switch {
	case isNewline(c):
		p.push()
	case c == '\\':
		p.state, p.valueBlank = valueEscape, -1
	default:
		p.valueBlank = blankFrom(p.valueBlank, len(p.value), c)
		p.value = append(p.value, c)
	}
}

// doubleQuotedStep reads inside "…".
func (p *envParser) doubleQuotedStep(c byte) {
	if p.state == doubleQuotedEscape {
		p.state = doubleQuoted
		switch {
		case strings.IndexByte("\"\\`$", c) >= 0:
			p.value = append(p.value, c)
		case c != '\n':
			p.value = append(p.value, '\\', c)
		}
		return
	}
	switch c {
	case '"':
		p.state = preValue
	case '\\':
		p.state = doubleQuotedEscape
	default:
		p.value = append(p.value, c)
	}
}

// commentStep skips a comment; since systemd 254 a backslash at its end
// does not continue it.
func (p *envParser) commentStep(c byte) {
	switch {
	case p.state == commentEscape:
		p.state = inComment
		if isNewline(c) {
			p.state = preKey
		}
	case c == '\\':
		p.state = commentEscape
	case isNewline(c):
		p.state = preKey
	}
}

// end finishes the file: a last assignment without a newline counts.
func (p *envParser) end() {
	switch p.state {
	case preValue, inValue, valueEscape, singleQuoted, doubleQuoted, doubleQuotedEscape:
		p.push()
	}
}

// push records the assignment read and starts a new line.
func (p *envParser) push() {
	key := p.key
	if p.keyBlank >= 0 {
		key = key[:p.keyBlank]
	}
	value := p.value
	if p.state == inValue && p.valueBlank >= 0 {
		value = value[:p.valueBlank]
	}
	if ValidName(string(key)) {
		p.out[string(key)] = string(value)
	}
	p.reset()
}

func (p *envParser) reset() {
	p.state, p.key, p.value, p.keyBlank, p.valueBlank = preKey, p.key[:0], nil, -1, -1
}

// blankFrom tracks where trailing blanks start: n when c is the first blank
// after a non-blank, -1 after a non-blank.
func blankFrom(start, n int, c byte) int {
	switch {
	case !isBlank(c):
		return -1
	case start < 0:
		return n
	}
	return start
}

// ValidName is systemd's test of an environment variable name
// (env_name_is_valid): not empty, only ASCII letters, digits and "_", not
// starting with a digit. systemd drops other names from Environment= and
// from environment files ("no-proxy", "a.b").
func ValidName(k string) bool {
	if k == "" || (k[0] >= '0' && k[0] <= '9') {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !isAlphanumeric(k[i]) && k[i] != '_' {
			return false
		}
	}
	return true
}
