package controller

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
)

// checkIntRanges reports the first number of a stored rollout that its Go
// field cannot hold. runtime.DefaultUnstructuredConverter converts an
// int64 into an int32 field by truncation, so status.batch: 3000000000 (which the API
// server stored before the CRD bounded int32 fields, as it does not
// enforce format: int32) would be read as -1294967296 and acted on.
// Written by hand because apimachinery's converter has no checked mode and
// a JSON round trip of every object on every planning step costs more.
func checkIntRanges(content map[string]any) error {
	return checkValue("", content, reflect.TypeFor[rolloutv1.NodeGroupRollout]())
}

var (
	intOrStringType = reflect.TypeFor[intstr.IntOrString]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// checkValue checks v, found at path, against the Go type t. A type with
// JSON of its own (metav1.Time, metav1.Duration) is left to its decoder.
func checkValue(path string, v any, t reflect.Type) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t != intOrStringType && reflect.PointerTo(t).Implements(unmarshalerType):
		return nil
	case t == intOrStringType:
		if _, isString := v.(string); isString {
			return nil
		}
		return checkInt(path, v, math.MinInt32, math.MaxInt32)
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		bits := t.Bits()
		return checkInt(path, v, -1<<(bits-1), 1<<(bits-1)-1)
	case t.Kind() == reflect.Slice:
		items, _ := v.([]any)
		for i, item := range items {
			if err := checkValue(fmt.Sprintf("%s[%d]", path, i), item, t.Elem()); err != nil {
				return err
			}
		}
	case t.Kind() == reflect.Map:
		m, _ := v.(map[string]any)
		for k, item := range m {
			if err := checkValue(path+"."+k, item, t.Elem()); err != nil {
				return err
			}
		}
	case t.Kind() == reflect.Struct:
		m, _ := v.(map[string]any)
		return checkFields(path, m, t)
	}
	return nil
}

// checkFields checks the JSON fields of the struct type t found in m,
// those of embedded structs included.
func checkFields(path string, m map[string]any, t reflect.Type) error {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			if err := checkFields(path, m, f.Type); err != nil {
				return err
			}
			continue
		}
		if v, ok := m[name]; ok && name != "" && name != "-" && name != "metadata" {
			if err := checkValue(strings.TrimPrefix(path+"."+name, "."), v, f.Type); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkInt reports v when it is a number outside [lo, hi] or not whole
// (anything else is left to the converter, which reports wrong types).
func checkInt(path string, v any, lo, hi int64) error {
	switch n := v.(type) {
	case int64:
		if n < lo || n > hi {
			return fmt.Errorf("%s: %d does not fit in its field (%d to %d)", path, n, lo, hi)
		}
	case float64:
		if n != math.Trunc(n) || n < float64(lo) || n > float64(hi) {
			return fmt.Errorf("%s: %v is not a whole number from %d to %d", path, n, lo, hi)
		}
	}
	return nil
}
