package merge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// JSONObjects deep-merges overlay over base, both JSON objects given as
// values by top-level key (the hub's kubelet.config and
// containerd.baseRuntimeSpec). When a key holds an object on both sides the
// two objects are merged key by key, recursively, and re-encoded compactly
// with sorted keys; any other overlay value (lists, scalars, null) replaces
// the base value wholesale. Values that are not merged are copied byte for
// byte. A nil or empty json.RawMessage counts as null.
//
// The result shares no memory with the inputs; it is nil when both inputs
// are empty. Errors wrap ErrInvalidJSON and name the top-level key.
func JSONObjects(base, overlay map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	if len(base) == 0 && len(overlay) == 0 {
		return nil, nil
	}
	if err := validateJSONValues(base); err != nil {
		return nil, fmt.Errorf("base object: %w", err)
	}
	if err := validateJSONValues(overlay); err != nil {
		return nil, fmt.Errorf("overlay object: %w", err)
	}
	merged := make(map[string]json.RawMessage, len(base)+len(overlay))
	for key, value := range base {
		merged[key] = cloneRaw(value)
	}
	for key, value := range overlay {
		baseValue, inBase := base[key]
		if !inBase || !isJSONObject(baseValue) || !isJSONObject(value) {
			merged[key] = cloneRaw(value)
			continue
		}
		combined, err := mergeJSONObjectBytes(baseValue, value)
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", key, err)
		}
		merged[key] = combined
	}
	return merged, nil
}

// validateJSONValues checks every value in sorted key order, so the error
// reported for several bad values is always the same one.
func validateJSONValues(object map[string]json.RawMessage) error {
	keys := make([]string, 0, len(object))
	for key := range object {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		value := object[key]
		if len(value) == 0 {
			continue
		}
		if !json.Valid(value) {
			return fmt.Errorf("%w: key %q: %s", ErrInvalidJSON, key, abbreviate(value))
		}
	}
	return nil
}

// mergeJSONObjectBytes merges two encoded objects into a new encoding.
func mergeJSONObjectBytes(base, overlay []byte) (json.RawMessage, error) {
	baseObject, err := decodeJSONObject(base)
	if err != nil {
		return nil, err
	}
	overlayObject, err := decodeJSONObject(overlay)
	if err != nil {
		return nil, err
	}
	mergeJSONMaps(baseObject, overlayObject)
	return encodeJSON(baseObject)
}

// mergeJSONMaps lays src over dst in place; objects merge, all else replaces.
func mergeJSONMaps(dst, src map[string]any) {
	for key, srcValue := range src {
		srcObject, srcIsObject := srcValue.(map[string]any)
		dstObject, dstIsObject := dst[key].(map[string]any)
		if srcIsObject && dstIsObject {
			mergeJSONMaps(dstObject, srcObject)
			continue
		}
		dst[key] = srcValue
	}
}

// decodeJSONObject decodes an object keeping numbers exactly as written.
func decodeJSONObject(raw []byte) (map[string]any, error) {
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber()
	var object map[string]any
	if err := decoder.Decode(&object); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidJSON, err)
	}
	return object, nil
}

// encodeJSON encodes compactly, keys sorted, without HTML escaping.
func encodeJSON(value any) (json.RawMessage, error) {
	var buf bytes.Buffer
	encoder := json.NewEncoder(&buf)
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(value); err != nil {
		return nil, fmt.Errorf("encode merged JSON: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// isJSONObject reports whether an encoded value is an object.
func isJSONObject(raw []byte) bool {
	trimmed := bytes.TrimLeft(raw, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '{'
}

// cloneRaw copies a raw value; nil stays nil.
func cloneRaw(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	return bytes.Clone(raw)
}

// abbreviate keeps error messages short for large values.
func abbreviate(raw []byte) string {
	const limit = 60
	if len(raw) <= limit {
		return fmt.Sprintf("%q", raw)
	}
	return fmt.Sprintf("%q...", raw[:limit])
}
