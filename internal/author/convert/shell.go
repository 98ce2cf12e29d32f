package convert

import (
	"strconv"
	"strings"
)

func itoa(i int) string { return strconv.Itoa(i) }

// shellSafe reports whether s needs no quoting in a POSIX shell word.
func shellSafe(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("_@%+=:,./-", c):
		default:
			return false
		}
	}
	return true
}

// shellQuote quotes s as one POSIX shell word: as is when safe, else in
// single quotes with each ' written as '\”.
func shellQuote(s string) string {
	if shellSafe(s) {
		return s
	}
	return singleQuote(s)
}

// singleQuote always quotes s in single quotes, each ' written as '\”.
func singleQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// powershellQuote quotes s as a PowerShell single-quoted (verbatim)
// string, doubling each quote. PowerShell also treats the typographic
// quotes U+2018, U+2019, U+201A and U+201B as single quotes, so those are
// doubled too.
func powershellQuote(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\'', '\u2018', '\u2019', '\u201A', '\u201B':
			b.WriteRune(r)
		}
		b.WriteRune(r)
	}
	b.WriteByte('\'')
	return b.String()
}
