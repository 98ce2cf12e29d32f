package decode

import (
	"fmt"
	"reflect"

	yaml "sigs.k8s.io/yaml/goyaml.v3"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// nodeBudget bounds the nodes one document may expand to, so alias bombs
// ("billion laughs") cannot exhaust memory or time.
const nodeBudget = 50_000

// hook decodes the value at one path instead of the generic walk.
type hook func(w *walker, n *yaml.Node, path string, v reflect.Value)

// walker decodes one YAML document into a Go value, recording the position
// of every path it visits and every problem it meets.
type walker struct {
	src       diag.Source
	base      int // absolute line of the data's first line
	data      []byte
	lines     lineIndex // of data, to place the parser's positions
	problems  diag.List
	positions diag.Positions
	// failed holds the paths that got a problem, so value checks on the
	// (empty) decoded result are not reported twice.
	failed map[string]bool
	hooks  map[string]hook
	// unknownHint may explain an unknown field at path (e.g. "is a
	// nodeboot extension"); "" when it has nothing to say.
	unknownHint func(path string) string
	// nullable is > 0 inside values where JSON null is meaningful.
	nullable int
	budget   int
	// exhausted is set once the budget ran out (reported once).
	exhausted bool
	// quiet drops problems (for a second pass over reported nodes).
	quiet bool
	// unknownStrictOnly marks unknown-field errors StrictOnly: set for
	// node.eks.aws documents, whose unknown fields nodeadm drops.
	unknownStrictOnly bool
}

// newWalker prepares a walker for one document of doc.Data.
func newWalker(src diag.Source, base int, data []byte, lines lineIndex) *walker {
	return &walker{
		src:       src,
		base:      base,
		data:      data,
		lines:     lines,
		positions: make(diag.Positions, 64),
		failed:    map[string]bool{},
		budget:    nodeBudget,
	}
}

// at is n's absolute position.
func (w *walker) at(n *yaml.Node) diag.Position {
	return w.place(n.Line, n.Column)
}

// place is the absolute position of the parser's line and column.
func (w *walker) place(line, column int) diag.Position {
	line, column = w.lines.position(line, column)
	return diag.Position{Line: w.base + line - 1, Column: column}
}

// errorf records an error at path, placed at n, and marks path as failed.
func (w *walker) errorf(n *yaml.Node, path, format string, args ...any) {
	if w.quiet {
		return
	}
	w.failed[path] = true
	w.report(n, path, format, args...)
}

// report records an error at path, placed at n.
func (w *walker) report(n *yaml.Node, path, format string, args ...any) {
	if !w.quiet {
		w.problems.Errorf(w.src, path, w.at(n), format, args...)
	}
}

// enter resolves aliases and spends budget; it returns nil when the budget
// is gone.
func (w *walker) enter(n *yaml.Node) *yaml.Node {
	w.budget--
	if w.budget < 0 {
		if !w.exhausted && !w.quiet {
			w.exhausted = true
			w.errorf(n, "", "document is too large: it expands to more than %d YAML nodes (check what the aliases here repeat)", nodeBudget)
		}
		return nil
	}
	return unalias(n)
}

// value decodes n into v (addressable), the value of path.
func (w *walker) value(n *yaml.Node, path string, v reflect.Value) {
	if n = w.enter(n); n == nil {
		return
	}
	w.positions[path] = w.at(n)
	if isNull(n) {
		w.null(n, path, v)
		return
	}
	if h, ok := w.hooks[path]; ok {
		h(w, n, path, v)
		return
	}
	w.nonNull(n, path, v)
}

// null handles an explicit null: fine where JSON null means "unset" or in
// free-form JSON, an error elsewhere.
func (w *walker) null(n *yaml.Node, path string, v reflect.Value) {
	switch {
	case v.Type() == rawMessageType:
		v.SetBytes([]byte("null"))
	case w.nullable > 0 || v.Kind() == reflect.Interface:
	default:
		w.errorf(n, path, "null is not allowed here; give %s or remove the key", expected(v.Type()))
	}
}

// nonNull decodes a non-null node by the target type.
func (w *walker) nonNull(n *yaml.Node, path string, v reflect.Value) {
	t := v.Type()
	if special := specialDecoder(t); special != nil {
		special(w, n, path, v)
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		p := reflect.New(t.Elem())
		w.nonNull(n, path, p.Elem())
		v.Set(p)
	case reflect.Struct:
		w.object(n, path, v)
	case reflect.Map:
		w.mapping(n, path, v)
	case reflect.Slice:
		w.list(n, path, v)
	case reflect.Interface:
		w.anyValue(n, path, v)
	default:
		w.scalar(n, path, v)
	}
}

// expectKind reports a node of the wrong kind; it returns false then.
func (w *walker) expectKind(n *yaml.Node, path string, kind yaml.Kind, t reflect.Type) bool {
	if n.Kind == kind {
		return true
	}
	msg := fmt.Sprintf("expected %s, got %s", expected(t), describeAt(n, path))
	if kind == yaml.SequenceNode && n.Kind == yaml.ScalarNode {
		msg += `; write one item per line, each starting with "- "`
	}
	w.errorf(n, path, "%s", msg)
	return false
}
