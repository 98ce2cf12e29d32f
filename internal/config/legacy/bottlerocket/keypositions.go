package bottlerocket

import (
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// KeyPositions maps every key path of the TOML document data, spelled as
// a dotted key (settings.kubernetes.node-labels."a/b"), to where its key
// stands; base is the user-data line of data's first line. Keys after a
// syntax error are missing.
func KeyPositions(data []byte, base int) map[string]diag.Position {
	index, _ := indexKeys(data, max(base, 1))
	out := make(map[string]diag.Position, len(index))
	for id, pos := range index {
		out[keyPath(strings.Split(id, "\x00")).String()] = pos
	}
	return out
}
