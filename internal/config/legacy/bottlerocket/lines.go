package bottlerocket

import (
	"strconv"

	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// keyIndex maps every key path of a TOML document (keyPath.id) to where its
// key stands in the user data. Table headers, dotted-key prefixes, keys of
// inline tables and array items are all recorded; the first occurrence of
// a path wins.
type keyIndex map[string]diag.Position

// at returns the position of p or, failing that, of its nearest ancestor.
func (ix keyIndex) at(p keyPath) diag.Position {
	for q := p; len(q) > 0; q = q.parent() {
		if pos, ok := ix[q.id()]; ok {
			return pos
		}
	}
	return diag.Position{}
}

// definition kinds, for finding the key a TOML redefinition error is about.
type definition int

const (
	definedImplicitly  definition = iota + 1 // prefix of a table header
	definedByHeader                          // [table]
	definedByDottedKey                       // a.b = … creates table a
	definedAsValue                           // a = …, including inline tables
)

// conflict is a key defined twice, found while indexing.
type conflict struct {
	pos     diag.Position
	path    keyPath
	first   diag.Position
	message string
}

// indexer walks the expressions of a document.
type indexer struct {
	parser    unstable.Parser
	base      int
	index     keyIndex
	defined   map[string]definition
	arrays    map[string]int
	conflict  *conflict
	tablePath keyPath
}

// indexKeys indexes data, whose first line is line base of the user data.
// It also reports the first key defined twice, with its whole path and
// where it was first defined (go-toml names the key relative to its table,
// and v2.2 gave no position). Syntax errors end the walk early; the index then
// holds the keys before the error.
func indexKeys(data []byte, base int) (keyIndex, *conflict) {
	ix := &indexer{base: base, index: keyIndex{}, defined: map[string]definition{}, arrays: map[string]int{}}
	ix.parser.Reset(data)
	for ix.parser.NextExpression() {
		ix.expression(ix.parser.Expression())
	}
	return ix.index, ix.conflict
}

func (ix *indexer) expression(e *unstable.Node) {
	switch e.Kind {
	case unstable.Table:
		path, positions := ix.key(nil, e.Key())
		ix.header(path, positions)
		ix.tablePath = path
	case unstable.ArrayTable:
		path, positions := ix.key(nil, e.Key())
		ix.record(path, positions)
		n := ix.arrays[path.id()]
		ix.arrays[path.id()] = n + 1
		ix.tablePath = path.child(strconv.Itoa(n))
		ix.index[ix.tablePath.id()] = positions[len(positions)-1]
	case unstable.KeyValue:
		ix.keyValue(ix.tablePath, e)
	}
}

// key reads a (dotted) key below parent, returning the full path and the
// position of each new segment.
func (ix *indexer) key(parent keyPath, it unstable.Iterator) (keyPath, []diag.Position) {
	path := append(keyPath{}, parent...)
	var positions []diag.Position
	for it.Next() {
		n := it.Node()
		path = append(path, string(n.Data))
		positions = append(positions, ix.position(n.Raw))
	}
	return path, positions
}

// position converts a parser range to a user-data position.
func (ix *indexer) position(r unstable.Range) diag.Position {
	if r.Length == 0 {
		return diag.Position{}
	}
	start := ix.parser.Shape(r).Start
	return diag.Position{Line: ix.base + start.Line - 1, Column: start.Column}
}

// record stores the positions of the last len(positions) segments of path.
func (ix *indexer) record(path keyPath, positions []diag.Position) {
	first := len(path) - len(positions)
	for i, pos := range positions {
		id := path[:first+i+1].id()
		if _, seen := ix.index[id]; !seen && !pos.IsZero() {
			ix.index[id] = pos
		}
	}
}

// header handles [a.b.c].
func (ix *indexer) header(path keyPath, positions []diag.Position) {
	last := positions[len(positions)-1]
	for i := 1; i < len(path); i++ {
		prefix := path[:i]
		switch ix.defined[prefix.id()] {
		case definedAsValue:
			ix.conflictAt(last, prefix, "%s is a value, so [%s] cannot add a table to it", prefix, path)
		case 0:
			ix.defined[prefix.id()] = definedImplicitly
		}
	}
	switch ix.defined[path.id()] {
	case definedByHeader:
		ix.conflictAt(last, path, "table [%s] is defined twice", path)
	case definedByDottedKey, definedAsValue:
		ix.conflictAt(last, path, "table [%s] was already defined by a dotted key or value", path)
	}
	ix.defined[path.id()] = definedByHeader
	ix.record(path, positions)
}

// keyValue handles a = v inside the table at parent (also inside inline tables).
func (ix *indexer) keyValue(parent keyPath, e *unstable.Node) {
	path, positions := ix.key(parent, e.Key())
	last := positions[len(positions)-1]
	for i := len(parent) + 1; i < len(path); i++ {
		prefix := path[:i]
		switch ix.defined[prefix.id()] {
		case definedAsValue:
			ix.conflictAt(last, prefix, "%s is already a value; it cannot also hold %s", prefix, path)
		case definedByHeader, definedImplicitly:
			ix.conflictAt(last, prefix, "table %s was defined elsewhere with a [header]; set %s there", prefix, path)
		case 0:
			ix.defined[prefix.id()] = definedByDottedKey
		}
	}
	if ix.defined[path.id()] != 0 {
		ix.conflictAt(last, path, "key %s is already defined", path)
	}
	ix.defined[path.id()] = definedAsValue
	ix.record(path, positions)
	ix.value(path, e.Value())
}

// value indexes the keys of inline tables and the items of arrays.
func (ix *indexer) value(path keyPath, v *unstable.Node) {
	switch v.Kind {
	case unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			ix.keyValue(path, it.Node())
		}
	case unstable.Array:
		it := v.Children()
		for i := 0; it.Next(); i++ {
			item := path.child(strconv.Itoa(i))
			if pos := ix.position(it.Node().Raw); !pos.IsZero() {
				ix.index[item.id()] = pos
			}
			ix.value(item, it.Node())
		}
	}
}

// conflictAt keeps the first conflict found.
func (ix *indexer) conflictAt(pos diag.Position, path keyPath, format string, args ...any) {
	if ix.conflict != nil {
		return
	}
	ix.conflict = &conflict{pos: pos, path: append(keyPath{}, path...), first: ix.index[path.id()], message: sprintf(format, args...)}
}
