package decode

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// thing is a small versioned type with the fields that have hooks.
type thing struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Size    int `json:"size"`
		Kubelet struct {
			Config map[string]json.RawMessage `json:"config"`
		} `json:"kubelet"`
	} `json:"spec"`
}

func TestObject(t *testing.T) {
	for _, tc := range []struct {
		name  string
		data  string
		wants []want
	}{
		{name: "valid", data: "apiVersion: x.io/v1\nkind: Thing\nspec:\n  size: 3\n  kubelet:\n    config:\n      maxPods: 20\n"},
		{name: "wrong kind and unknown field", data: "apiVersion: x.io/v1\nkind: Other\nspec:\n  sise: 3\n", wants: []want{
			{field: "kind", line: 6, column: 7, message: `is "Other"; it must be Thing`},
			{field: "spec.sise", line: 8, column: 3, message: `did you mean "size"?`},
		}},
		{name: "kubelet config is checked", data: "apiVersion: x.io/v1\nkind: Thing\nspec:\n  kubelet:\n    config:\n      maxPods: many\n", wants: []want{
			{field: "spec.kubelet.config[maxPods]", line: 10, message: "expected an integer"},
		}},
		{name: "missing type meta and spec", data: "{}\n", wants: []want{
			{field: "apiVersion", line: 5, message: "missing; add apiVersion: x.io/v1"},
			{field: "kind", line: 5, message: "missing; add kind: Thing"},
			{field: "spec", line: 5, message: "missing"},
		}},
		{name: "validation placed at its field", data: "apiVersion: x.io/v1\nkind: Thing\nspec:\n  size: -1\n", wants: []want{
			{field: "spec.size", line: 8, column: 9, message: "too small"},
		}},
		{name: "empty", data: "\n", wants: []want{{line: 5, message: "no Thing found"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out thing
			schema := Schema{APIVersion: "x.io/v1", Kind: "Thing", Validate: func() field.ErrorList {
				if out.Spec.Size < 0 {
					return field.ErrorList{field.Invalid(field.NewPath("spec", "size"), out.Spec.Size, "too small")}
				}
				return nil
			}}
			_, problems := Object(userdata.Document{Source: testSource, Format: userdata.FormatNodeConfig, Data: []byte(tc.data)}, schema, &out)
			assertProblems(t, problems, tc.wants)
		})
	}
}
