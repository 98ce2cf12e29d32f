package decode

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	yaml "sigs.k8s.io/yaml/goyaml.v3"

	metav1 "github.com/nodeboot/nodeboot/internal/k8sapi/meta/v1"
	"github.com/nodeboot/nodeboot/internal/k8sapi/resource"
)

// specialFunc decodes a type whose YAML form is not its Go shape.
type specialFunc func(w *walker, n *yaml.Node, path string, v reflect.Value)

var (
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	bytesType         = reflect.TypeFor[[]byte]()
	durationType      = reflect.TypeFor[metav1.Duration]()
	quantityType      = reflect.TypeFor[resource.Quantity]()
	jsonUnmarshalType = reflect.TypeFor[json.Unmarshaler]()
)

// specialNames says what the special types expect, for messages.
var specialNames = map[reflect.Type]string{
	rawMessageType: "a JSON value",
	bytesType:      "a base64 string",
	durationType:   `a duration such as "2m30s"`,
	quantityType:   `a quantity such as "100Mi" or 2`,
}

// unmarshalerCache remembers which types implement json.Unmarshaler.
var unmarshalerCache sync.Map

// specialDecoder returns the decoder for types that need one, or nil.
func specialDecoder(t reflect.Type) specialFunc {
	switch t {
	case rawMessageType:
		return (*walker).rawMessage
	case bytesType:
		return (*walker).base64Bytes
	case durationType:
		return (*walker).duration
	case quantityType:
		return (*walker).quantity
	}
	if t.Kind() != reflect.Pointer && implementsUnmarshaler(t) {
		return (*walker).viaJSON
	}
	return nil
}

// implementsUnmarshaler reports whether *t decodes itself from JSON.
func implementsUnmarshaler(t reflect.Type) bool {
	if ok, found := unmarshalerCache.Load(t); found {
		return ok.(bool)
	}
	ok := reflect.PointerTo(t).Implements(jsonUnmarshalType)
	unmarshalerCache.Store(t, ok)
	return ok
}

// rawMessage keeps any JSON value as is.
func (w *walker) rawMessage(n *yaml.Node, path string, v reflect.Value) {
	if raw, ok := w.toJSON(n, path, true); ok {
		v.SetBytes(raw)
	}
}

// base64Bytes decodes standard base64 text, as encoding/json does for []byte.
func (w *walker) base64Bytes(n *yaml.Node, path string, v reflect.Value) {
	if !w.expectKind(n, path, yaml.ScalarNode, v.Type()) {
		return
	}
	if tag := n.ShortTag(); !isTextTag(tag) {
		w.errorf(n, path, "expected a base64 string, got %s", describeAt(n, path))
		return
	}
	b, err := base64.StdEncoding.DecodeString(n.Value)
	if err != nil {
		w.errorf(n, path, "is not valid standard base64: %s", base64Problem(n.Value))
		return
	}
	v.SetBytes(b)
}

// base64Problem explains a base64 decoding failure: PEM text given
// unencoded, the first character standard base64 does not allow and its
// byte offset (with a URL-safe hint only when every such character is - or
// _), = before the end, a missing padding, or a wrong length.
func base64Problem(s string) string {
	if strings.HasPrefix(strings.TrimSpace(s), "-----BEGIN") {
		return "it looks like PEM text; give the base64 of the PEM file instead (base64 -w0 ca.crt)"
	}
	if i := strings.IndexFunc(s, isNotBase64Rune); i >= 0 {
		r, _ := utf8.DecodeRuneInString(s[i:])
		msg := fmt.Sprintf("unexpected %q at offset %d", r, i)
		if isURLSafeBase64(s) {
			msg += "; - and _ are URL-safe base64: use standard base64 with + and / instead"
		}
		return msg
	}
	if i := strings.IndexByte(s, '='); i >= 0 && strings.Trim(s[i:], "=\r\n") != "" {
		return fmt.Sprintf("unexpected '=' at offset %d; = may only pad the end", i)
	}
	if isRawBase64(s) {
		return "the = padding at the end is missing or wrong"
	}
	return "the length is wrong; it may be cut short"
}

// isNotBase64Rune reports whether r cannot appear in standard base64 text
// (line breaks can: the decoder skips them).
func isNotBase64Rune(r rune) bool {
	return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' ||
		r == '+' || r == '/' || r == '=' || r == '\r' || r == '\n')
}

// isURLSafeBase64 reports whether s holds - or _ and nothing else outside
// standard base64, i.e. it was written with the URL-safe alphabet.
func isURLSafeBase64(s string) bool {
	return strings.ContainsAny(s, "-_") && strings.IndexFunc(s, func(r rune) bool {
		return r != '-' && r != '_' && isNotBase64Rune(r)
	}) < 0
}

// isRawBase64 reports whether s decodes once its padding is dropped.
func isRawBase64(s string) bool {
	_, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
	return err == nil
}

// duration decodes a metav1.Duration from a Go duration string.
func (w *walker) duration(n *yaml.Node, path string, v reflect.Value) {
	if !w.expectKind(n, path, yaml.ScalarNode, v.Type()) {
		return
	}
	if !isTextTag(n.ShortTag()) {
		w.errorf(n, path, `expected a duration such as "2m30s", got %s; add a unit (s, m, h)`, describeAt(n, path))
		return
	}
	d, err := time.ParseDuration(n.Value)
	if err != nil {
		w.errorf(n, path, `invalid duration %q; write it like "90s" or "2m30s"`, valueAt(n, path))
		return
	}
	v.Set(reflect.ValueOf(metav1.Duration{Duration: d}))
}

// quantity decodes a resource.Quantity from a string or a number.
func (w *walker) quantity(n *yaml.Node, path string, v reflect.Value) {
	if !w.expectKind(n, path, yaml.ScalarNode, v.Type()) {
		return
	}
	tag := n.ShortTag()
	if !isTextTag(tag) && tag != tagInt && tag != tagFloat {
		w.errorf(n, path, `expected a quantity such as "100Mi" or 2, got %s`, describeAt(n, path))
		return
	}
	q, err := resource.ParseQuantity(strings.TrimSpace(n.Value))
	if err != nil {
		w.errorf(n, path, `invalid quantity %q; write it like "100Mi", "1Gi", "500m" or 2`, valueAt(n, path))
		return
	}
	v.Set(reflect.ValueOf(q))
}

// viaJSON hands the value, as JSON, to the type's own UnmarshalJSON.
func (w *walker) viaJSON(n *yaml.Node, path string, v reflect.Value) {
	raw, ok := w.toJSON(n, path, true)
	if !ok {
		return
	}
	if err := v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil {
		w.errorf(n, path, "invalid %s: %v", v.Type().Name(), err)
	}
}
