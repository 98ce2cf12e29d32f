package decode

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"

	"github.com/pelletier/go-toml/v2"
	yaml "sigs.k8s.io/yaml/goyaml.v3"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// containerdConfig decodes spec.containerd.config and checks that it is
// TOML, placing a syntax error on its user-data line when the text is a
// literal block scalar (config: |), where TOML line r sits r lines below
// the "|".
func (w *walker) containerdConfig(n *yaml.Node, path string, v reflect.Value) {
	w.scalar(n, path, v)
	if w.failed[path] || v.String() == "" {
		return
	}
	var doc map[string]any
	err := toml.Unmarshal([]byte(v.String()), &doc)
	var derr *toml.DecodeError
	if err == nil || !errors.As(err, &derr) {
		if err != nil {
			w.errorf(n, path, "is not valid TOML: %v", err)
		}
		return
	}
	row, col := derr.Position()
	pos, where := w.tomlPosition(n, row, col)
	w.failed[path] = true
	w.problems.Errorf(w.src, path, pos, "is not valid TOML%s: %v", where, derr)
}

// tomlPosition maps a TOML row and column to the user data. When it cannot
// (quoted or folded strings), it returns the string's position and a
// " (TOML line r, column c)" note.
func (w *walker) tomlPosition(n *yaml.Node, row, col int) (diag.Position, string) {
	if n.Style&yaml.LiteralStyle == 0 {
		return w.at(n), fmt.Sprintf(" (TOML line %d, column %d)", row, col)
	}
	return w.place(n.Line+row, w.blockIndent(n.Line)+col), ""
}

// blockIndent is the indentation of the first non-blank parser line after
// the header line (1-based), i.e. of a block scalar's content.
func (w *walker) blockIndent(header int) int {
	for l := header + 1; l <= len(w.lines); l++ {
		text := w.lines.text(w.data, l)
		trimmed := bytes.TrimLeft(text, " ")
		if len(bytes.TrimSpace(trimmed)) > 0 {
			return len(text) - len(trimmed)
		}
	}
	return 0
}
