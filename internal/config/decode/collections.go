package decode

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	yaml "sigs.k8s.io/yaml/goyaml.v3"

	"github.com/nodeboot/nodeboot/internal/config/validate/suggest"
)

// object decodes a mapping into a struct, field by JSON name.
func (w *walker) object(n *yaml.Node, path string, v reflect.Value) {
	if !w.expectKind(n, path, yaml.MappingNode, v.Type()) {
		return
	}
	fields := fieldsOf(v.Type())
	w.eachPair(n, path, childPath, func(key string, kn, vn *yaml.Node) {
		f, ok := fields.byName[key]
		if !ok {
			w.unknownField(kn, path, childPath(path, key), key, fields)
			return
		}
		w.value(vn, childPath(path, key), fieldByIndex(v, f.index))
	})
}

// unknownField reports a key the type does not have, with the nearest
// known name, the sub-section that has such a field (a key indented one
// level too little), or the list of known names. A key that may hold a
// secret (keyShown) is not printed, not even in the field path.
// parent is the path of the mapping, path the key's.
func (w *walker) unknownField(kn *yaml.Node, parent, path, key string, fields *structInfo) {
	if w.unknownStrictOnly {
		defer w.markStrictOnly(len(w.problems))
	}
	if !keyShown(parent, key) {
		w.errorf(kn, parent, "unknown field (its name is not shown: it may hold a secret); known fields: %s", strings.Join(fields.names, ", "))
		return
	}
	msg := fmt.Sprintf("unknown field %q", key)
	switch hint, near, owner := w.hint(path), suggest.Closest(key, fields.names), fieldOwner(fields, key); {
	case hint != "":
		msg += "; " + hint
	case near != "":
		msg += fmt.Sprintf("; did you mean %q?", near)
	case owner != "":
		msg += fmt.Sprintf("; %s has a field %q: is it indented under %s?", childPath(parent, owner), key, owner)
	case len(fields.names) <= 12:
		msg += "; known fields: " + strings.Join(fields.names, ", ")
	}
	w.errorf(kn, path, "%s", msg)
}

// markStrictOnly marks the problems recorded from index from on.
func (w *walker) markStrictOnly(from int) {
	for i := from; i < len(w.problems); i++ {
		w.problems[i].StrictOnly = true
	}
}

// fieldOwner returns the name of a struct-typed field of fields whose own
// fields include key, or "".
func fieldOwner(fields *structInfo, key string) string {
	for _, name := range fields.names {
		t := fields.byName[name].typ
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || specialDecoder(t) != nil {
			continue
		}
		if _, ok := fieldsOf(t).byName[key]; ok {
			return name
		}
	}
	return ""
}

// hint asks unknownHint, when set.
func (w *walker) hint(path string) string {
	if w.unknownHint == nil {
		return ""
	}
	return w.unknownHint(path)
}

// mapping decodes a mapping into a map with string-like keys.
func (w *walker) mapping(n *yaml.Node, path string, v reflect.Value) {
	t := v.Type()
	if !w.expectKind(n, path, yaml.MappingNode, t) {
		return
	}
	if t.Key().Kind() != reflect.String {
		w.errorf(n, path, "cannot decode into %s (internal schema error)", t)
		return
	}
	m := reflect.MakeMapWithSize(t, len(n.Content)/2)
	w.eachPair(n, path, keyPath, func(key string, _, vn *yaml.Node) {
		ev := reflect.New(t.Elem()).Elem()
		w.value(vn, keyPath(path, key), ev)
		m.SetMapIndex(reflect.ValueOf(key).Convert(t.Key()), ev)
	})
	v.Set(m)
}

// list decodes a sequence into a slice.
func (w *walker) list(n *yaml.Node, path string, v reflect.Value) {
	if !w.expectKind(n, path, yaml.SequenceNode, v.Type()) {
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		if w.exhausted {
			break
		}
		w.value(item, indexPath(path, i), s.Index(i))
	}
	v.Set(s)
}

// eachPair calls fn for every key/value of a mapping in document order,
// reporting keys that are not scalars (which are skipped); join makes a
// key's path (childPath for struct fields, keyPath for map keys). Key
// problems do not mark the mapping as failed, so the keys that are fine
// are still checked. YAML merge keys and duplicate keys are read as
// nodeadm reads them (yaml11.go): merged, and the last of duplicates
// counts.
func (w *walker) eachPair(n *yaml.Node, path string, join func(parent, key string) string, fn func(key string, kn, vn *yaml.Node)) {
	for _, p := range w.pairsOf(n, path, join, 0) {
		fn(p.key, p.kn, p.vn)
	}
}

// pair is one key of a mapping and the value that counts for it.
type pair struct {
	key    string
	kn, vn *yaml.Node
}

// pairsOf lists a mapping's keys in the order they first appear, each
// with its last value, merge keys (<<) expanded where they stand, as
// go-yaml v2 assigns them; depth bounds merges of merges.
func (w *walker) pairsOf(n *yaml.Node, path string, join func(parent, key string) string, depth int) []pair {
	var out []pair
	index := make(map[string]int, len(n.Content)/2)
	assign := func(p pair) {
		i, dup := index[p.key]
		if !dup {
			index[p.key] = len(out)
			out = append(out, p)
			return
		}
		if depth == 0 && p.kn.Tag != tagMerge {
			w.duplicateKey(out[i].kn, p.kn, path, join)
		}
		out[i].vn = p.vn
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn := w.enter(n.Content[i])
		if kn == nil {
			return out
		}
		if kn.Kind == yaml.ScalarNode && kn.ShortTag() == tagMerge {
			for _, p := range w.merged(kn, n.Content[i+1], path, join, depth) {
				assign(p)
			}
			continue
		}
		if !w.validKey(kn, path) {
			continue
		}
		assign(pair{kn.Value, kn, n.Content[i+1]})
	}
	return out
}

// duplicateKey reports a key given twice: nodeadm takes the later value.
func (w *walker) duplicateKey(first, later *yaml.Node, path string, join func(parent, key string) string) {
	const msg = "duplicate key%s (first at line %d); nodeadm uses the later value, and so does this boot; remove one of them"
	if keyShown(path, later.Value) {
		w.nodeadmReads(later, join(path, later.Value), msg, " "+strconv.Quote(later.Value), w.at(first).Line)
	} else {
		w.nodeadmReads(later, path, msg, "", w.at(first).Line)
	}
}

// merged is what a merge key brings: the pairs of the mapping it names, or
// of each mapping of a list, the earlier ones winning (go-yaml v2's rule).
func (w *walker) merged(kn, vn *yaml.Node, path string, join func(parent, key string) string, depth int) []pair {
	w.nodeadmReads(kn, path, "YAML merge keys (<<) are YAML 1.1; nodeadm merges them, and so does this boot; write the fields out")
	if depth > 8 {
		w.errorf(kn, path, "YAML merge keys nested too deep")
		return nil
	}
	if vn = w.enter(vn); vn == nil {
		return nil
	}
	var sources []*yaml.Node
	switch vn.Kind {
	case yaml.MappingNode:
		sources = []*yaml.Node{vn}
	case yaml.SequenceNode:
		for i := len(vn.Content) - 1; i >= 0; i-- {
			sources = append(sources, w.enter(vn.Content[i]))
		}
	}
	var out []pair
	for _, m := range sources {
		if m == nil || m.Kind != yaml.MappingNode {
			w.errorf(kn, path, "a YAML merge key (<<) must name a mapping or a list of mappings")
			return nil
		}
		for _, p := range w.pairsOf(m, path, join, depth+1) {
			p.kn = &yaml.Node{Kind: yaml.ScalarNode, Tag: tagMerge, Value: p.key, Line: p.kn.Line, Column: p.kn.Column}
			out = append(out, p)
		}
	}
	return out
}

// validKey reports keys that cannot name a field: non-scalars and merge keys.
func (w *walker) validKey(kn *yaml.Node, path string) bool {
	switch {
	case kn.Kind != yaml.ScalarNode:
		w.report(kn, path, "mapping keys must be strings, got %s", describeAt(kn, path))
		return false
	}
	return true
}
