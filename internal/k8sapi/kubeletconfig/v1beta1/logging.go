package v1beta1

import (
	"encoding/json"
	"fmt"

	metav1 "github.com/nodeboot/nodeboot/internal/k8sapi/meta/v1"
)

// TimeOrMetaDuration is the logging flush frequency
// (k8s.io/component-base/logs/api/v1.TimeOrMetaDuration): a duration
// written either as a string ("5s") or as a number of nanoseconds, and
// written back the way it was read.
type TimeOrMetaDuration struct {
	// Duration is the value.
	Duration metav1.Duration
	// SerializeAsString is true when it was read from a string.
	SerializeAsString bool `json:"-"`
}

// MarshalJSON writes a string or nanoseconds, as SerializeAsString says.
func (t TimeOrMetaDuration) MarshalJSON() ([]byte, error) {
	if t.SerializeAsString {
		return t.Duration.MarshalJSON()
	}
	return json.Marshal(t.Duration.Duration)
}

// UnmarshalJSON reads a duration string or a number of nanoseconds.
func (t *TimeOrMetaDuration) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		t.SerializeAsString = true
		return json.Unmarshal(data, &t.Duration)
	}
	t.SerializeAsString = false
	if err := json.Unmarshal(data, &t.Duration.Duration); err != nil {
		return fmt.Errorf("invalid duration %q: %w", string(data), err)
	}
	return nil
}
