package bootstrapsh

import (
	"strings"
	"unicode/utf8"
)

// maxQuoted is how many bytes of a value messages quote at most.
const maxQuoted = 60

// clip shortens s to at most maxQuoted bytes (on a rune boundary),
// marking the cut with "…".
func clip(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// excerpt shortens source text for messages, showing line breaks as ⏎.
func excerpt(s string) string {
	return strings.ReplaceAll(clip(s), "\n", "⏎")
}

// shellQuote renders a value for messages the way a user would type it,
// shortened to a prefix when it is long.
func shellQuote(s string) string {
	s = clip(s)
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>(){}*?[]#~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// isName reports a valid shell variable name.
func isName(s string) bool {
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameChar(s[i]) {
			return false
		}
	}
	return true
}

func isNameStart(c byte) bool { return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }
func isNameChar(c byte) bool  { return isNameStart(c) || isDigit(c) }
func isDigit(c byte) bool     { return '0' <= c && c <= '9' }
