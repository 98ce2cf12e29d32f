package bottlerocket

import (
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/tomlsyntax"
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
		b.WriteString(tomlsyntax.QuoteKey(seg))
	}
	return b.String()
}
