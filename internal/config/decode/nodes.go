package decode

import (
	"fmt"

	yaml "sigs.k8s.io/yaml/goyaml.v3"

	"github.com/nodeboot/nodeboot/internal/config/diag"
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

// describeAt is describe, without the value when the field at path may
// hold a secret (diag.HidesValue).
func describeAt(n *yaml.Node, path string) string {
	if n.Kind == yaml.ScalarNode && diag.HidesValue(path) {
		return describeKind(n)
	}
	return describe(n)
}

// describeKind names a scalar by its resolved type only.
func describeKind(n *yaml.Node) string {
	switch n.ShortTag() {
	case tagNull:
		return "null"
	case tagBool:
		return "a boolean"
	case tagInt:
		return "an integer"
	case tagFloat:
		return "a number"
	case tagStr, tagTimestamp, tagBinary:
		return "a string"
	default:
		return fmt.Sprintf("a value with tag %s", n.Tag)
	}
}

// valueAt is n's text for messages, or "the value" when the field at path
// may hold a secret.
func valueAt(n *yaml.Node, path string) string {
	if diag.HidesValue(path) {
		return "the value"
	}
	return clip(n.Value)
}

// keyShown reports whether a mapping key under path may be printed: keys
// are names, but under a field that may hold a secret only name-like keys
// are shown (bootstrapToken: {token abc…} has the token in its key).
func keyShown(path, key string) bool {
	return !diag.HidesValue(path) || isNameLike(key)
}

// isNameLike reports a key such as "token" or "HTTPS_PROXY": a letter or _
// followed by at most 63 letters, digits, _ and -.
func isNameLike(key string) bool {
	if key == "" || len(key) > 64 {
		return false
	}
	for i, c := range key {
		letter := c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || c != '-' && (c < '0' || c > '9')) {
			return false
		}
	}
	return true
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
