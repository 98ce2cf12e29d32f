package bootstrapsh

import (
	"strconv"
	"strings"
)

// ansiC decodes the escapes of a $'…' string's content, as bash does.
func ansiC(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i += ansiEscape(s[i+1:], &b)
	}
	return b.String()
}

// ansiEscape1 decodes the single-letter escapes of $'…'.
func ansiEscape1(c byte) (string, bool) {
	switch c {
	case 'n':
		return "\n", true
	case 't':
		return "\t", true
	case 'r':
		return "\r", true
	case 'a':
		return "\a", true
	case 'b':
		return "\b", true
	case 'f':
		return "\f", true
	case 'v':
		return "\v", true
	case 'e', 'E':
		return "\x1b", true
	case '\\', '\'', '"', '?':
		return string(c), true
	}
	return "", false
}

// ansiEscape decodes the escape at the start of rest (the text after a
// backslash) into b and returns how many bytes of rest it used.
func ansiEscape(rest string, b *strings.Builder) int {
	if s, ok := ansiEscape1(rest[0]); ok {
		b.WriteString(s)
		return 1
	}
	digits, base, maxLen, skip := "01234567", 8, 3, 0
	if rest[0] == 'x' {
		digits, base, maxLen, skip = "0123456789abcdefABCDEF", 16, 2, 1
	}
	n := 0
	for n < maxLen && skip+n < len(rest) && strings.IndexByte(digits, rest[skip+n]) >= 0 {
		n++
	}
	if n == 0 {
		if base == 16 {
			b.WriteString(`\x`)
			return 1
		}
		b.WriteByte('\\')
		return 0
	}
	v, _ := strconv.ParseUint(rest[skip:skip+n], base, 16)
	b.WriteByte(byte(v))
	return skip + n
}
