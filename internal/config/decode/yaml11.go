package decode

import (
	"math"
	"strconv"

	yaml "sigs.k8s.io/yaml/goyaml.v3"
)

// nodeadm reads NodeConfig YAML with sigs.k8s.io/yaml, that is with
// go-yaml v2's YAML 1.1 rules, and nodeboot with YAML 1.2 (go-yaml v3).
// Where the two read the same text differently, nodeadm's reading is what
// users have booted nodes with, so a node.eks.aws document is read as
// nodeadm reads it, with a warning (StrictOnly: config check and init
// --strict refuse it): plain yes/no/on/off (and y/n) are booleans, a
// float with no fraction fills an integer, a YAML merge key (<<) merges,
// and of duplicate keys the last one counts. Elsewhere they stay errors.

// yaml11Bools are go-yaml v2's plain scalars that resolve to booleans
// (its resolve.go) beyond YAML 1.2's true/false.
var yaml11Bools = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true, "on": true, "On": true, "ON": true,
	"n": false, "N": false, "no": false, "No": false, "NO": false, "off": false, "Off": false, "OFF": false,
}

// yaml11Bool reports whether n is a plain scalar YAML 1.1 reads as a
// boolean that YAML 1.2 reads as a string, and its value.
func yaml11Bool(n *yaml.Node) (value, ok bool) {
	if n.Kind != yaml.ScalarNode || n.Style != 0 || n.ShortTag() != tagStr {
		return false, false
	}
	value, ok = yaml11Bools[n.Value]
	return value, ok
}

// wholeFloat reports whether n is a float scalar with no fraction (30.0),
// which nodeadm writes to JSON as the integer it equals, and that integer.
func wholeFloat(n *yaml.Node, tag string) (int64, bool) {
	if tag != tagFloat {
		return 0, false
	}
	f, ok := finiteNumber(n, tag)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// nodeadmReads records a problem in text nodeadm reads anyway: in a
// node.eks.aws document a StrictOnly error (init warns and decodes the
// value as nodeadm does), elsewhere an error that fails the path.
func (w *walker) nodeadmReads(n *yaml.Node, path, format string, args ...any) {
	if w.quiet {
		return
	}
	if !w.unknownStrictOnly {
		w.errorf(n, path, format, args...)
		return
	}
	from := len(w.problems)
	w.report(n, path, format, args...)
	w.markStrictOnly(from)
}

// yaml11Note ends the message of a nodeadmReads problem.
const yaml11Note = "nodeadm's YAML 1.1 reader takes it as %s"

// quoteBool is how a YAML 1.1 boolean is spelt for messages.
func quoteBool(b bool) string { return strconv.FormatBool(b) }
