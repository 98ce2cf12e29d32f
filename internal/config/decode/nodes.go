package decode

import (
	"fmt"

	yaml "sigs.k8s.io/yaml/goyaml.v3"
)

// Resolved YAML tags (yaml.Node.ShortTag).
const (
	tagNull      = "!!null"
	tagBool      = "!!bool"
	tagInt       = "!!int"
	tagFloat     = "!!float"
	tagStr       = "!!str"
	tagTimestamp = "!!timestamp"
	tagBinary    = "!!binary"
	tagMerge     = "!!merge"
)

// isNull reports whether n is a null scalar ("", "~", "null").
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == tagNull
}

// isTextTag reports whether a scalar with this tag reads as text: strings,
// and timestamps and binary, which JSON has no type for.
func isTextTag(tag string) bool {
	return tag == tagStr || tag == tagTimestamp || tag == tagBinary
}

// describe names a node for "expected X, got Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return describeScalar(n)
	case yaml.AliasNode:
		return "an alias"
	default:
		return "a document"
	}
}

// describeScalar names a scalar by its resolved type, with its value.
func describeScalar(n *yaml.Node) string {
	switch n.ShortTag() {
	case tagNull:
		return "null"
	case tagBool:
		return "a boolean (" + n.Value + ")"
	case tagInt:
		return "an integer (" + n.Value + ")"
	case tagFloat:
		return "a number (" + n.Value + ")"
	case tagStr, tagTimestamp, tagBinary:
		return fmt.Sprintf("a string (%q)", clip(n.Value))
	default:
		return fmt.Sprintf("a value with tag %s", n.Tag)
	}
}

// clip shortens long values quoted in messages.
func clip(s string) string {
	const limit = 40
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "…"
}
