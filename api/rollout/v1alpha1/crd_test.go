package v1alpha1

import (
	"math"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// crdPath is the CRD manifest generated from these types (make generate).
const crdPath = "../../../deploy/rollout/nodeboot.io_nodegrouprollouts.yaml"

// openAPISchema is the part of a structural OpenAPI openAPISchema the check reads.
type openAPISchema struct {
	Type                 string                   `json:"type"`
	Format               string                   `json:"format"`
	Properties           map[string]openAPISchema `json:"properties"`
	Items                *openAPISchema           `json:"items"`
	AdditionalProperties *openAPISchema           `json:"additionalProperties"`
	Required             []string                 `json:"required"`
	IntOrString          bool                     `json:"x-kubernetes-int-or-string"`
	Minimum              *float64                 `json:"minimum"`
	Maximum              *float64                 `json:"maximum"`
}

type crd struct {
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind   string `json:"kind"`
			Plural string `json:"plural"`
		} `json:"names"`
		Scope    string `json:"scope"`
		Versions []struct {
			Name         string `json:"name"`
			Served       bool   `json:"served"`
			Storage      bool   `json:"storage"`
			Subresources struct {
				Status *struct{} `json:"status"`
			} `json:"subresources"`
			Schema struct {
				OpenAPIV3Schema openAPISchema `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

// TestCRDMatchesTypes keeps the checked-in CRD in step with the Go types:
// every JSON field of the spec and status, with its type and whether it is
// required, and nothing else. Run hack/generate.sh after changing a type.
func TestCRDMatchesTypes(t *testing.T) {
	data, err := os.ReadFile(crdPath)
	if err != nil {
		t.Fatal(err)
	}
	var c crd
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	if c.Spec.Group != Group || c.Spec.Names.Kind != Kind || c.Spec.Names.Plural != Resource || c.Spec.Scope != "Cluster" {
		t.Errorf("CRD names %+v scope %s", c.Spec.Names, c.Spec.Scope)
	}
	if len(c.Spec.Versions) != 1 || c.Spec.Versions[0].Name != Version || !c.Spec.Versions[0].Served || !c.Spec.Versions[0].Storage ||
		c.Spec.Versions[0].Subresources.Status == nil {
		t.Fatalf("CRD versions %+v, want one served and stored %s with a status subresource", c.Spec.Versions, Version)
	}
	root := c.Spec.Versions[0].Schema.OpenAPIV3Schema
	for _, field := range []string{"spec", "status"} {
		f, _ := reflect.TypeOf(NodeGroupRollout{}).FieldByName(strings.ToUpper(field[:1]) + field[1:])
		compare(t, field, f.Type, root.Properties[field])
	}
	if !slices.Contains(root.Required, "spec") {
		t.Errorf("spec is not required at the root: %v", root.Required)
	}
}

var (
	timeType        = reflect.TypeOf(metav1.Time{})
	durationType    = reflect.TypeOf(metav1.Duration{})
	intOrStringType = reflect.TypeOf(intstr.IntOrString{})
)

// compare checks one Go type against its openAPISchema, recursively.
func compare(t *testing.T, path string, typ reflect.Type, s openAPISchema) {
	t.Helper()
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	want := func(kind, format string) {
		t.Helper()
		if s.Type != kind || (format != "" && s.Format != format) {
			t.Errorf("%s: openAPISchema type %q format %q, want %q %q for Go %s", path, s.Type, s.Format, kind, format, typ)
		}
	}
	switch {
	case typ == timeType:
		want("string", "date-time")
	case typ == durationType:
		want("string", "")
	case typ == intOrStringType:
		if !s.IntOrString {
			t.Errorf("%s: not x-kubernetes-int-or-string", path)
		}
	case typ.Kind() == reflect.String:
		want("string", "")
	case typ.Kind() == reflect.Bool:
		want("boolean", "")
	case typ.Kind() == reflect.Int32:
		want("integer", "int32")
		withinInt32(t, path, s)
	case typ.Kind() == reflect.Int64:
		want("integer", "int64")
	case typ.Kind() == reflect.Slice:
		want("array", "")
		if s.Items == nil {
			t.Errorf("%s: array without items", path)
			return
		}
		compare(t, path+"[]", typ.Elem(), *s.Items)
	case typ.Kind() == reflect.Map:
		want("object", "")
		if s.AdditionalProperties == nil {
			t.Errorf("%s: map without additionalProperties", path)
			return
		}
		compare(t, path+"{}", typ.Elem(), *s.AdditionalProperties)
	case typ.Kind() == reflect.Struct:
		want("object", "")
		compareStruct(t, path, typ, s)
	default:
		t.Errorf("%s: Go kind %s not handled by the check", path, typ.Kind())
	}
}

// withinInt32 checks that an int32 field's schema bounds it to the int32
// range: the API server does not enforce format: int32, and a larger
// number stored would not decode (or, unstructured, wrap round).
func withinInt32(t *testing.T, path string, s openAPISchema) {
	t.Helper()
	if s.Minimum == nil || *s.Minimum < math.MinInt32 || s.Maximum == nil || *s.Maximum > math.MaxInt32 {
		t.Errorf("%s: int32 without bounds within the int32 range (+kubebuilder:validation:Minimum/Maximum)", path)
	}
}

func compareStruct(t *testing.T, path string, typ reflect.Type, s openAPISchema) {
	t.Helper()
	var names, required []string
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" || name == "-" {
			t.Errorf("%s.%s: no JSON name", path, f.Name)
			continue
		}
		names = append(names, name)
		if !strings.Contains(opts, "omitempty") {
			required = append(required, name)
		}
		sub, ok := s.Properties[name]
		if !ok {
			t.Errorf("%s.%s: missing from the CRD (run hack/generate.sh)", path, name)
			continue
		}
		compare(t, path+"."+name, f.Type, sub)
	}
	for name := range s.Properties {
		if !slices.Contains(names, name) {
			t.Errorf("%s.%s: in the CRD but not in the Go type (run hack/generate.sh)", path, name)
		}
	}
	got := slices.Clone(s.Required)
	sort.Strings(got)
	sort.Strings(required)
	if !slices.Equal(got, required) {
		t.Errorf("%s: CRD requires %v, the Go type (fields without omitempty) %v", path, got, required)
	}
}

func TestDeepCopyIsDeep(t *testing.T) {
	ro := &NodeGroupRollout{
		Spec: NodeGroupRolloutSpec{MaxUnavailable: &intstr.IntOrString{Type: intstr.String, StrVal: "10%"},
			NewNodes: NewNodeRequirements{Labels: map[string]LabelValue{"a": "b"}}},
		Status: NodeGroupRolloutStatus{Nodes: []NodeProgress{{Name: "n", Blockers: []PodBlocker{{Pod: "p", PodDisruptionBudgets: []string{"x"}}}}}},
	}
	cp := ro.DeepCopy()
	cp.Spec.MaxUnavailable.StrVal = "20%"
	cp.Spec.NewNodes.Labels["a"] = "c"
	cp.Status.Nodes[0].Blockers[0].PodDisruptionBudgets[0] = "y"
	if ro.Spec.MaxUnavailable.StrVal != "10%" || ro.Spec.NewNodes.Labels["a"] != "b" || ro.Status.Nodes[0].Blockers[0].PodDisruptionBudgets[0] != "x" {
		t.Errorf("DeepCopy shares memory with the original: %+v", ro)
	}
}
