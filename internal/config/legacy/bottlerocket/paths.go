package bottlerocket

import (
	"strings"
)

// keyPath is a TOML key path, one element per key segment:
// ["settings", "kubernetes", "node-labels", "eks.amazonaws.com/nodegroup"].
type keyPath []string

// child returns a new path with key appended (p is never modified).
func (p keyPath) child(key string) keyPath {
	out := make(keyPath, len(p), len(p)+1)
	copy(out, p)
	return append(out, key)
}

// parent returns p without its last segment.
func (p keyPath) parent() keyPath {
	if len(p) == 0 {
		return p
	}
	return p[:len(p)-1]
}

// id is the path as a map key; segments may contain dots, so they are
// joined with a byte TOML keys cannot hold unescaped.
func (p keyPath) id() string { return strings.Join(p, "\x00") }

// String renders the path as TOML would spell it as a dotted key, quoting
// segments that are not bare keys: settings.kubernetes.node-labels."a/b".
func (p keyPath) String() string {
	var b strings.Builder
	for i, seg := range p {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(QuoteKey(seg))
	}
	return b.String()
}

// QuoteKey returns key as a TOML key: bare when it only holds A-Z a-z 0-9 _
// and -, else a basic string.
func QuoteKey(key string) string {
	if isBareKey(key) {
		return key
	}
	return QuoteString(key)
}

func isBareKey(s string) bool {
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
