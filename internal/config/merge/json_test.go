package merge

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

type rawObject = map[string]json.RawMessage

func TestJSONObjects(t *testing.T) {
	tests := []struct {
		name    string
		base    rawObject
		overlay rawObject
		want    rawObject
	}{
		{name: "both empty gives nil", base: rawObject{}, overlay: nil, want: nil},
		{
			name:    "empty base copies overlay verbatim",
			overlay: rawObject{"maxPods": json.RawMessage(` 58 `), "x": json.RawMessage(`{ "b":1, "a":2 }`)},
			want:    rawObject{"maxPods": json.RawMessage(` 58 `), "x": json.RawMessage(`{ "b":1, "a":2 }`)},
		},
		{
			name:    "scalar replaced, untouched keys kept verbatim",
			base:    rawObject{"maxPods": json.RawMessage(`58`), "clusterDomain": json.RawMessage(`"cluster.local"`)},
			overlay: rawObject{"maxPods": json.RawMessage(`110`)},
			want:    rawObject{"maxPods": json.RawMessage(`110`), "clusterDomain": json.RawMessage(`"cluster.local"`)},
		},
		{
			name:    "nested objects merged key by key with sorted re-encoding",
			base:    rawObject{"evictionHard": json.RawMessage(`{"nodefs.available":"10%","memory.available":"100Mi","x":{"a":1,"b":2}}`)},
			overlay: rawObject{"evictionHard": json.RawMessage(`{"memory.available":"200Mi","x":{"b":3}}`)},
			want:    rawObject{"evictionHard": json.RawMessage(`{"memory.available":"200Mi","nodefs.available":"10%","x":{"a":1,"b":3}}`)},
		},
		{
			name:    "lists replaced wholesale",
			base:    rawObject{"process": json.RawMessage(`{"rlimits":[{"type":"RLIMIT_NOFILE"}],"cwd":"/"}`)},
			overlay: rawObject{"process": json.RawMessage(`{"rlimits":[]}`)},
			want:    rawObject{"process": json.RawMessage(`{"cwd":"/","rlimits":[]}`)},
		},
		{
			name:    "object replaced by a scalar and scalar by an object",
			base:    rawObject{"a": json.RawMessage(`{"k":1}`), "b": json.RawMessage(`3`)},
			overlay: rawObject{"a": json.RawMessage(`"flat"`), "b": json.RawMessage(`{"k":2}`)},
			want:    rawObject{"a": json.RawMessage(`"flat"`), "b": json.RawMessage(`{"k":2}`)},
		},
		{
			name:    "null is kept as a value at both levels",
			base:    rawObject{"a": json.RawMessage(`{"k":1,"j":2}`), "b": json.RawMessage(`3`)},
			overlay: rawObject{"a": json.RawMessage(`{"k":null}`), "b": json.RawMessage(`null`)},
			want:    rawObject{"a": json.RawMessage(`{"j":2,"k":null}`), "b": json.RawMessage(`null`)},
		},
		{
			name:    "empty raw message counts as null and is copied",
			base:    rawObject{"a": json.RawMessage(`1`)},
			overlay: rawObject{"a": nil},
			want:    rawObject{"a": nil},
		},
		{
			name:    "large numbers and HTML characters survive a merge",
			base:    rawObject{"a": json.RawMessage(`{"n":123456789012345678901234567890,"s":"<a&b>"}`)},
			overlay: rawObject{"a": json.RawMessage(`{"f":1.50}`)},
			want:    rawObject{"a": json.RawMessage(`{"f":1.50,"n":123456789012345678901234567890,"s":"<a&b>"}`)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := JSONObjects(tc.base, tc.overlay)
			if err != nil {
				t.Fatalf("JSONObjects: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("JSONObjects mismatch\n got: %s\nwant: %s", dumpRaw(got), dumpRaw(tc.want))
			}
		})
	}
}

func TestJSONObjectsErrors(t *testing.T) {
	tests := []struct {
		name    string
		base    rawObject
		overlay rawObject
		wantMsg string
	}{
		{name: "bad base value", base: rawObject{"a": json.RawMessage(`{`)}, overlay: rawObject{"b": json.RawMessage(`1`)}, wantMsg: `base object: invalid JSON: key "a"`},
		{name: "bad overlay value", base: rawObject{"a": json.RawMessage(`1`)}, overlay: rawObject{"a": json.RawMessage(`tru`)}, wantMsg: `overlay object: invalid JSON: key "a"`},
		{name: "first bad key in sorted order", overlay: rawObject{"z": json.RawMessage(`x`), "b": json.RawMessage(`y`)}, wantMsg: `overlay object: invalid JSON: key "b"`},
		{name: "trailing garbage", overlay: rawObject{"a": json.RawMessage(`{} {}`)}, wantMsg: `overlay object: invalid JSON: key "a"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := JSONObjects(tc.base, tc.overlay)
			if !errors.Is(err, ErrInvalidJSON) {
				t.Fatalf("error %v does not wrap ErrInvalidJSON", err)
			}
			if !strings.HasPrefix(err.Error(), tc.wantMsg) {
				t.Errorf("error %q, want prefix %q", err, tc.wantMsg)
			}
		})
	}
}

func TestJSONObjectsDoesNotAliasInputs(t *testing.T) {
	base := rawObject{"a": json.RawMessage(`"x"`)}
	overlay := rawObject{"b": json.RawMessage(`"y"`)}
	got, err := JSONObjects(base, overlay)
	if err != nil {
		t.Fatalf("JSONObjects: %v", err)
	}
	base["a"][1] = 'q'
	overlay["b"][1] = 'q'
	if string(got["a"]) != `"x"` || string(got["b"]) != `"y"` {
		t.Errorf("result changed with its inputs: %s", dumpRaw(got))
	}
}

// FuzzJSONObjects checks that merging never panics and that every merged
// value is valid JSON.
func FuzzJSONObjects(f *testing.F) {
	f.Add([]byte(`{"a":1}`), []byte(`{"a":{"b":2}}`))
	f.Add([]byte(`{"a":{"b":[1]}}`), []byte(`{"a":{"b":null,"c":"<"}}`))
	f.Fuzz(func(t *testing.T, base, overlay []byte) {
		var baseObject, overlayObject rawObject
		if json.Unmarshal(base, &baseObject) != nil || json.Unmarshal(overlay, &overlayObject) != nil {
			return
		}
		merged, err := JSONObjects(baseObject, overlayObject)
		if err != nil {
			t.Fatalf("valid inputs failed to merge: %v", err)
		}
		for key, value := range merged {
			if len(value) > 0 && !json.Valid(value) {
				t.Fatalf("key %q holds invalid JSON %q", key, value)
			}
			if _, ok := overlayObject[key]; !ok {
				if _, ok := baseObject[key]; !ok {
					t.Fatalf("key %q appeared from nowhere", key)
				}
			}
		}
		if len(merged) < len(overlayObject) {
			t.Fatalf("merged has fewer keys than overlay")
		}
	})
}

func dumpRaw(object rawObject) string {
	var b strings.Builder
	b.WriteString("{")
	for key, value := range object {
		b.WriteString(key + "=" + string(value) + " ")
	}
	b.WriteString("}")
	return b.String()
}
