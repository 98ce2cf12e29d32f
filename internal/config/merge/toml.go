package merge

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/pelletier/go-toml/v2"
)

// TOML deep-merges the overlay document over the base document: tables are
// merged key by key, recursively; every other value (arrays and arrays of
// tables included) is replaced by the overlay's. The merged document is
// serialised by go-toml v2, so keys come out sorted and comments are lost.
//
// A side that holds no keys (blank, or only comments) does not force a
// re-serialisation: the other side's bytes are returned unchanged, after a
// syntax check. Errors wrap ErrInvalidTOML and name the side and position.
func TOML(base, overlay []byte) ([]byte, error) {
	baseTable, err := parseTOML(base)
	if err != nil {
		return nil, fmt.Errorf("base document: %w", err)
	}
	overlayTable, err := parseTOML(overlay)
	if err != nil {
		return nil, fmt.Errorf("overlay document: %w", err)
	}
	if len(overlayTable) == 0 {
		return bytes.Clone(base), nil
	}
	if len(baseTable) == 0 {
		return bytes.Clone(overlay), nil
	}
	mergeTables(baseTable, overlayTable)
	out, err := toml.Marshal(baseTable)
	if err != nil {
		return nil, fmt.Errorf("serialise merged TOML: %w", err)
	}
	return out, nil
}

// parseTOML decodes a document into a generic table.
func parseTOML(doc []byte) (map[string]any, error) {
	table := map[string]any{}
	if err := toml.Unmarshal(doc, &table); err != nil {
		return nil, describeTOMLError(err)
	}
	return table, nil
}

// describeTOMLError adds the line and column go-toml knows to the message.
func describeTOMLError(err error) error {
	var decodeErr *toml.DecodeError
	if errors.As(err, &decodeErr) {
		row, col := decodeErr.Position()
		return fmt.Errorf("%w: line %d, column %d: %w", ErrInvalidTOML, row, col, err)
	}
	return fmt.Errorf("%w: %w", ErrInvalidTOML, err)
}

// mergeTables lays src over dst in place. Both come straight from parseTOML,
// so nothing is shared with a caller.
func mergeTables(dst, src map[string]any) {
	for key, srcValue := range src {
		srcTable, srcIsTable := srcValue.(map[string]any)
		dstTable, dstIsTable := dst[key].(map[string]any)
		if srcIsTable && dstIsTable {
			mergeTables(dstTable, srcTable)
			continue
		}
		dst[key] = srcValue
	}
}
