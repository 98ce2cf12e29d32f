// Package tomlsyntax holds TOML's quoting rules, shared by the Bottlerocket
// reader (which names keys in its diagnostics as TOML spells them) and the
// writers of TOML user data, so both quote a key the same way. go-toml
// quotes when it encodes whole documents but exports no function for one
// key or string, hence these few lines.
package tomlsyntax

import "strings"

// QuoteKey returns key as a TOML key: bare when it only holds A-Z a-z 0-9 _
// and -, else a basic string.
func QuoteKey(key string) string {
	if IsBareKey(key) {
		return key
	}
	return QuoteString(key)
}

// IsBareKey reports whether s can be written as a bare TOML key.
func IsBareKey(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// QuoteString returns s as a TOML basic string ("…"), escaping quotes,
// backslashes and control characters.
func QuoteString(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\u00`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&0xf])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
