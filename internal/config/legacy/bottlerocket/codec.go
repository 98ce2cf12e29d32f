package bottlerocket

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// ErrUnexpressible is wrapped by ConfigSetting.Encode when a kubelet config
// value has no Bottlerocket spelling.
var ErrUnexpressible = errors.New("no Bottlerocket setting can hold this value")

// codec converts one setting's value between its TOML form and the JSON
// form of its KubeletConfiguration field.
type codec interface {
	// decode checks v, the setting's TOML value at p, and returns the
	// kubelet config value (JSON-encodable); false after reporting.
	decode(d *decoder, p keyPath, v any) (any, bool)
	// encode turns a kubelet config value back into the TOML value.
	encode(raw json.RawMessage) (any, error)
}

// jsonValue reads raw into generic JSON values, numbers as json.Number.
func jsonValue(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: invalid JSON: %w", ErrUnexpressible, err)
	}
	return v, nil
}

// unexpressible builds an ErrUnexpressible error.
func unexpressible(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnexpressible, fmt.Sprintf(format, args...))
}

// jsonString reads a JSON string.
func jsonString(raw json.RawMessage) (string, error) {
	v, err := jsonValue(raw)
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", unexpressible("expected a string, got %s", raw)
	}
	return s, nil
}

// jsonInt reads a JSON integer within [lo, hi].
func jsonInt(raw json.RawMessage, lo, hi int64) (int64, error) {
	v, err := jsonValue(raw)
	if err != nil {
		return 0, err
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, unexpressible("expected an integer, got %s", raw)
	}
	i, err := n.Int64()
	if err != nil || i < lo || i > hi {
		return 0, unexpressible("%s is not an integer between %d and %d", n, lo, hi)
	}
	return i, nil
}

// jsonStringMap reads a JSON object of strings.
func jsonStringMap(raw json.RawMessage) (map[string]string, error) {
	v, err := jsonValue(raw)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, unexpressible("expected an object, got %s", raw)
	}
	out := make(map[string]string, len(obj))
	for k, item := range obj {
		s, ok := item.(string)
		if !ok {
			return nil, unexpressible("%s: expected a string", k)
		}
		out[k] = s
	}
	return out, nil
}

// stringCodec is a string setting with an optional value check.
type stringCodec struct {
	// check returns what is wrong with the value, or "".
	check func(string) string
}

func (c stringCodec) decode(d *decoder, p keyPath, v any) (any, bool) {
	s, ok := d.str(p, v)
	if !ok {
		return nil, false
	}
	if c.check != nil {
		if problem := c.check(s); problem != "" {
			d.errorf(p, "%q %s", clip(s), problem)
			return nil, false
		}
	}
	return s, true
}

func (c stringCodec) encode(raw json.RawMessage) (any, error) {
	s, err := jsonString(raw)
	if err != nil {
		return nil, err
	}
	if c.check != nil {
		if problem := c.check(s); problem != "" {
			return nil, unexpressible("%q %s", s, problem)
		}
	}
	return s, nil
}

// boolCodec is a true/false setting.
type boolCodec struct{}

func (boolCodec) decode(d *decoder, p keyPath, v any) (any, bool) { return d.boolean(p, v) }

func (boolCodec) encode(raw json.RawMessage) (any, error) {
	v, err := jsonValue(raw)
	if err != nil {
		return nil, err
	}
	b, ok := v.(bool)
	if !ok {
		return nil, unexpressible("expected true or false, got %s", raw)
	}
	return b, nil
}

// intCodec is an integer setting within [lo, hi].
type intCodec struct{ lo, hi int64 }

func (c intCodec) decode(d *decoder, p keyPath, v any) (any, bool) {
	return d.integer(p, v, c.lo, c.hi)
}

func (c intCodec) encode(raw json.RawMessage) (any, error) { return jsonInt(raw, c.lo, c.hi) }

// floatCodec is a number setting in (lo, hi].
type floatCodec struct{ lo, hi float64 }

func (c floatCodec) decode(d *decoder, p keyPath, v any) (any, bool) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int64:
		f = float64(x)
	default:
		d.errorf(p, "expected a number, got %s", d.describe(p, v))
		return nil, false
	}
	if !(f > c.lo && f <= c.hi) || math.IsNaN(f) {
		d.errorf(p, "%g is out of range: must be more than %g and at most %g", f, c.lo, c.hi)
		return nil, false
	}
	return f, true
}

func (c floatCodec) encode(raw json.RawMessage) (any, error) {
	v, err := jsonValue(raw)
	if err != nil {
		return nil, err
	}
	n, ok := v.(json.Number)
	if !ok {
		return nil, unexpressible("expected a number, got %s", raw)
	}
	f, err := n.Float64()
	if err != nil || !(f > c.lo && f <= c.hi) {
		return nil, unexpressible("%s is not a number in (%g, %g]", n, c.lo, c.hi)
	}
	return f, nil
}

// enumCodec is a string setting with a fixed set of values, matched
// without regard to case and written in the kubelet's spelling.
type enumCodec struct{ values []string }

func (c enumCodec) canonical(s string) (string, bool) {
	for _, v := range c.values {
		if strings.EqualFold(v, s) {
			return v, true
		}
	}
	return "", false
}

func (c enumCodec) decode(d *decoder, p keyPath, v any) (any, bool) {
	s, ok := d.str(p, v)
	if !ok {
		return nil, false
	}
	if out, ok := c.canonical(s); ok {
		return out, true
	}
	d.errorf(p, "unsupported value %q; use one of %s", clip(s), quotedList(c.values))
	return nil, false
}

func (c enumCodec) encode(raw json.RawMessage) (any, error) {
	s, err := jsonString(raw)
	if err != nil {
		return nil, err
	}
	out, ok := c.canonical(s)
	if !ok {
		return nil, unexpressible("%q is not one of %s", s, quotedList(c.values))
	}
	return out, nil
}

// quotedList renders values as "a", "b" or "c".
func quotedList(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = fmt.Sprintf("%q", v)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// stringListCodec is an array of strings.
type stringListCodec struct{}

func (stringListCodec) decode(d *decoder, p keyPath, v any) (any, bool) { return d.stringList(p, v) }

func (stringListCodec) encode(raw json.RawMessage) (any, error) {
	v, err := jsonValue(raw)
	if err != nil {
		return nil, err
	}
	items, ok := v.([]any)
	if !ok {
		return nil, unexpressible("expected a list, got %s", raw)
	}
	out := make([]any, len(items))
	for i, item := range items {
		s, ok := item.(string)
		if !ok {
			return nil, unexpressible("item %d is not a string", i)
		}
		out[i] = s
	}
	return out, nil
}

// wrapCodec is a setting that is one field of a kubelet config object
// (memory-swap-behavior is memorySwap.swapBehavior).
type wrapCodec struct {
	field string
	inner codec
}

func (c wrapCodec) decode(d *decoder, p keyPath, v any) (any, bool) {
	out, ok := c.inner.decode(d, p, v)
	if !ok {
		return nil, false
	}
	return map[string]any{c.field: out}, true
}

func (c wrapCodec) encode(raw json.RawMessage) (any, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, unexpressible("expected an object, got %s", raw)
	}
	inner, ok := obj[c.field]
	if !ok || len(obj) != 1 {
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return nil, unexpressible("only %s can be set, got %s", c.field, strings.Join(keys, ", "))
	}
	return c.inner.encode(inner)
}
