// Package v1 holds the three apimachinery meta/v1 types the kubelet's
// configuration files use, encoding as k8s.io/apimachinery/pkg/apis/meta/v1
// does: TypeMeta (kind and apiVersion), Duration (a Go duration string) and
// Time (RFC 3339, null when unset).
package v1

import (
	"bytes"
	"encoding/json"
	"time"
)

// TypeMeta names an object's kind and API version.
type TypeMeta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// Duration is a time.Duration written as a string such as "2m0s".
type Duration struct {
	time.Duration
}

// UnmarshalJSON reads a JSON string that time.ParseDuration accepts.
func (d *Duration) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	parsed, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	d.Duration = parsed
	return nil
}

// MarshalJSON writes the duration as time.Duration.String does.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(d.Duration.String())
}

// Time is a timestamp with second precision, written in RFC 3339 (UTC), or
// null when zero.
type Time struct {
	time.Time
}

// UnmarshalJSON reads null (the zero time) or an RFC 3339 string, which
// becomes local time.
func (t *Time) UnmarshalJSON(data []byte) error {
	if bytes.Equal(data, []byte("null")) {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	parsed, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return err
	}
	t.Time = parsed.Local()
	return nil
}

// MarshalJSON writes null for the zero time, else RFC 3339 in UTC.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.UTC().Format(time.RFC3339))
}
