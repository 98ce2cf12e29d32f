package kubelet

import (
	"encoding/json"
	"fmt"
)

// jsonIndent is nodeadm's JSON indentation.
const jsonIndent = "    "

// marshalJSON encodes v with 4-space indentation and a final newline. Map
// keys come out sorted, so the bytes are deterministic.
func marshalJSON(v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", jsonIndent)
	if err != nil {
		return nil, fmt.Errorf("encode JSON: %w", err)
	}
	return append(data, '\n'), nil
}
