package containerd

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/nodeboot/nodeboot/internal/config/merge"
)

// defaultBaseRuntimeSpec is the OCI spec every container starts from (the
// same content as nodeadm's: OCI 1.1.0, five namespaces, masked and
// read-only /proc and /sys paths, deny-all devices, the standard mounts, 14
// capabilities, noNewPrivileges, uid/gid 0 and RLIMIT_NOFILE 65536/1048576).
// It is stored in canonical form: sorted keys, two-space indent, final
// newline, so rendering it without user input returns these exact bytes.
//
//go:embed templates/base-runtime-spec.json
var defaultBaseRuntimeSpec []byte

// renderBaseRuntimeSpec lays the user's fragment over the default spec.
// Objects merge key by key and lists are replaced (merge.JSONObjects); the
// result is written in the same canonical form as the default.
func renderBaseRuntimeSpec(user map[string]json.RawMessage) ([]byte, error) {
	if len(user) == 0 {
		return bytes.Clone(defaultBaseRuntimeSpec), nil
	}
	var base map[string]json.RawMessage
	if err := json.Unmarshal(defaultBaseRuntimeSpec, &base); err != nil {
		return nil, fmt.Errorf("decode default base runtime spec: %w", err)
	}
	merged, err := merge.JSONObjects(base, user)
	if err != nil {
		return nil, fmt.Errorf("containerd.baseRuntimeSpec: %w", err)
	}
	return canonicalJSON(merged)
}

// canonicalJSON re-encodes an object with every nested key sorted, numbers
// kept as written, two-space indent, no HTML escaping and a final newline.
func canonicalJSON(object map[string]json.RawMessage) ([]byte, error) {
	tree := make(map[string]any, len(object))
	for key, raw := range object {
		if len(raw) == 0 {
			tree[key] = nil
			continue
		}
		decoder := json.NewDecoder(bytes.NewReader(raw))
		decoder.UseNumber()
		var value any
		if err := decoder.Decode(&value); err != nil {
			return nil, fmt.Errorf("containerd.baseRuntimeSpec key %q: %w", key, err)
		}
		tree[key] = value
	}
	var buf bytes.Buffer
	encoder := json.NewEncoder(&buf)
	encoder.SetEscapeHTML(false)
	encoder.SetIndent("", "  ")
	if err := encoder.Encode(tree); err != nil {
		return nil, fmt.Errorf("encode base runtime spec: %w", err)
	}
	return buf.Bytes(), nil
}
