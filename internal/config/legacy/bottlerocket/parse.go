package bottlerocket

import (
	"errors"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// parse reads the TOML into generic values and indexes the key positions.
// It reports false after recording a problem when the TOML is invalid.
func (d *decoder) parse() (map[string]any, bool) {
	index, clash := indexKeys(d.data, d.base)
	d.index = index
	var tree map[string]any
	err := toml.Unmarshal(d.data, &tree)
	if err == nil {
		return tree, true
	}
	var derr *toml.DecodeError
	isDecodeErr := errors.As(err, &derr)
	var pos diag.Position
	if isDecodeErr {
		row, col := derr.Position()
		pos = diag.Position{Line: d.base + row - 1, Column: col}
	}
	switch {
	case clash != nil && (!isDecodeErr || clash.pos.Line == pos.Line):
		d.clashProblem(clash)
	case isDecodeErr:
		d.problems.Errorf(d.src, keyPath(derr.Key()).String(), pos, "invalid TOML: %s", tomlMessage(err))
	default:
		d.problems.Errorf(d.src, "", diag.Position{Line: d.base}, "invalid TOML: %s", tomlMessage(err))
	}
	return nil, false
}

// clashProblem records a key defined twice as the indexer words it: with
// the key's whole path and where it was first defined, which go-toml's
// message ("key kubernetes is already defined", on the key relative to its
// table) leaves out.
func (d *decoder) clashProblem(clash *conflict) {
	msg := clash.message
	if !clash.first.IsZero() && clash.first != clash.pos {
		msg += sprintf(" (first at line %d)", clash.first.Line)
	}
	d.problems.Errorf(d.src, clash.path.String(), clash.pos, "invalid TOML: %s", msg)
}

// tomlMessage is go-toml's message without its "toml: " prefix.
func tomlMessage(err error) string {
	return strings.TrimPrefix(err.Error(), "toml: ")
}
