package decode

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	yaml "sigs.k8s.io/yaml/goyaml.v3"
)

// scalar decodes a scalar node into a string, bool or number.
func (w *walker) scalar(n *yaml.Node, path string, v reflect.Value) {
	if !w.expectKind(n, path, yaml.ScalarNode, v.Type()) {
		return
	}
	tag := n.ShortTag()
	switch v.Kind() {
	case reflect.String:
		w.setString(n, path, v, tag)
	case reflect.Bool:
		w.setBool(n, path, v, tag)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.setInt(n, path, v, tag)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		w.setUint(n, path, v, tag)
	case reflect.Float32, reflect.Float64:
		w.setFloat(n, path, v, tag)
	default:
		w.errorf(n, path, "cannot decode into %s (internal schema error)", v.Type())
	}
}

// setString accepts text scalars only: like encoding/json (and nodeadm),
// a YAML number or boolean is not a string.
func (w *walker) setString(n *yaml.Node, path string, v reflect.Value, tag string) {
	if b, ok := yaml11Bool(n); ok && w.unknownStrictOnly {
		// nodeadm reads it as a boolean: it refuses it for its own string
		// fields and writes it into kubelet.config as one (yaml11.go).
		w.errorf(n, path, "expected a string, got %s, which nodeadm's YAML 1.1 reader takes as %s; put it in quotes if it is meant as text",
			valueAt(n, path), quoteBool(b))
		return
	}
	if !isTextTag(tag) {
		w.errorf(n, path, "expected a string, got %s; put it in quotes if it is meant as text", describeAt(n, path))
		return
	}
	v.SetString(n.Value)
}

// setBool accepts true and false (any case YAML allows).
func (w *walker) setBool(n *yaml.Node, path string, v reflect.Value, tag string) {
	if b, ok := yaml11Bool(n); ok && w.unknownStrictOnly {
		w.nodeadmReads(n, path, "%s is a string in YAML 1.2; "+yaml11Note+"; write %s", valueAt(n, path), quoteBool(b), quoteBool(b))
		v.SetBool(b)
		return
	}
	if tag != tagBool {
		w.errorf(n, path, "expected a boolean, got %s; write true or false", describeAt(n, path))
		return
	}
	v.SetBool(strings.EqualFold(n.Value, "true"))
}

// setInt accepts YAML integers that fit v's size.
func (w *walker) setInt(n *yaml.Node, path string, v reflect.Value, tag string) {
	if i, ok := wholeFloat(n, tag); ok && w.unknownStrictOnly && !v.OverflowInt(i) {
		w.nodeadmReads(n, path, "expected an integer, got %s; nodeadm writes it as %d; write %d", valueAt(n, path), i, i)
		v.SetInt(i)
		return
	}
	if tag != tagInt {
		w.errorf(n, path, "expected an integer, got %s%s", describeAt(n, path), unquoteHint(n, tag))
		return
	}
	i, err := strconv.ParseInt(yamlDigits(n.Value), 0, v.Type().Bits())
	if err != nil {
		w.errorf(n, path, "%s does not fit: %s", valueAt(n, path), rangeText(v.Type(), err))
		return
	}
	v.SetInt(i)
}

// setUint accepts non-negative YAML integers that fit v's size.
func (w *walker) setUint(n *yaml.Node, path string, v reflect.Value, tag string) {
	if i, ok := wholeFloat(n, tag); ok && w.unknownStrictOnly && i >= 0 && !v.OverflowUint(uint64(i)) {
		w.nodeadmReads(n, path, "expected an integer, got %s; nodeadm writes it as %d; write %d", valueAt(n, path), i, i)
		v.SetUint(uint64(i))
		return
	}
	if tag != tagInt {
		w.errorf(n, path, "expected a non-negative integer, got %s%s", describeAt(n, path), unquoteHint(n, tag))
		return
	}
	if strings.HasPrefix(n.Value, "-") {
		w.errorf(n, path, "%s is negative; give 0 or more", valueAt(n, path))
		return
	}
	u, err := strconv.ParseUint(yamlDigits(n.Value), 0, v.Type().Bits())
	if err != nil {
		w.errorf(n, path, "%s does not fit: %s", valueAt(n, path), rangeText(v.Type(), err))
		return
	}
	v.SetUint(u)
}

// setFloat accepts YAML integers and finite floats.
func (w *walker) setFloat(n *yaml.Node, path string, v reflect.Value, tag string) {
	f, ok := finiteNumber(n, tag)
	if !ok {
		w.errorf(n, path, "expected a finite number, got %s%s", describeAt(n, path), unquoteHint(n, tag))
		return
	}
	v.SetFloat(f)
}

// finiteNumber reads an integer or float scalar that JSON can carry.
func finiteNumber(n *yaml.Node, tag string) (float64, bool) {
	if tag != tagInt && tag != tagFloat {
		return 0, false
	}
	f, err := strconv.ParseFloat(yamlDigits(n.Value), 64)
	if err != nil {
		// Hex, octal and binary integers.
		i, ierr := strconv.ParseInt(yamlDigits(n.Value), 0, 64)
		return float64(i), ierr == nil
	}
	return f, !math.IsInf(f, 0) && !math.IsNaN(f)
}

// yamlDigits normalises a YAML number for strconv: YAML allows "_"
// separators anywhere and spells octal "0o17", infinity ".inf".
func yamlDigits(s string) string {
	s = strings.ReplaceAll(s, "_", "")
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case ".inf":
		return strings.Replace(strings.ToLower(s), ".inf", "inf", 1)
	case ".nan":
		return "nan"
	}
	return s
}

// unquoteHint suggests removing quotes around a number.
func unquoteHint(n *yaml.Node, tag string) string {
	if tag == tagStr && n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		if _, err := strconv.ParseFloat(n.Value, 64); err == nil {
			return "; remove the quotes"
		}
	}
	return ""
}

// rangeText explains a strconv failure for a value of type t.
func rangeText(t reflect.Type, err error) string {
	if !errors.Is(err, strconv.ErrRange) {
		return "not an integer"
	}
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fmt.Sprintf("must be between 0 and %d", uint64(1)<<t.Bits()-1)
	}
	return fmt.Sprintf("must be between %d and %d", -(int64(1) << (t.Bits() - 1)), int64(1)<<(t.Bits()-1)-1)
}

// expected names what a Go type wants in "expected X" messages.
func expected(t reflect.Type) string {
	if name, ok := specialNames[t]; ok {
		return name
	}
	switch t.Kind() {
	case reflect.Pointer:
		return expected(t.Elem())
	case reflect.Struct, reflect.Map:
		return "a mapping"
	case reflect.Slice:
		return "a list"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a value"
}
