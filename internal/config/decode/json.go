package decode

import (
	"encoding/json"
	"reflect"
	"strconv"
	"unicode/utf8"

	yaml "sigs.k8s.io/yaml/goyaml.v3"
)

// toJSON renders n as JSON; with record, the position of every nested path
// is recorded too. It reports false (after recording problems) when n has
// something JSON cannot hold.
func (w *walker) toJSON(n *yaml.Node, path string, record bool) ([]byte, bool) {
	j := jsonWriter{w: w, record: record, ok: true}
	j.node(n, path, true)
	return j.buf, j.ok
}

// anyValue decodes free-form YAML into an interface value (JSON types).
func (w *walker) anyValue(n *yaml.Node, path string, v reflect.Value) {
	raw, ok := w.toJSON(n, path, true)
	if !ok {
		return
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		w.errorf(n, path, "cannot be read as JSON: %v", err)
		return
	}
	if out != nil {
		v.Set(reflect.ValueOf(out))
	}
}

// jsonWriter appends one node tree as JSON.
type jsonWriter struct {
	w      *walker
	buf    []byte
	record bool
	ok     bool
}

// node appends n; entered tells whether n was already entered (budget
// spent, aliases resolved, position recorded).
func (j *jsonWriter) node(n *yaml.Node, path string, entered bool) {
	if !entered {
		if n = j.w.enter(n); n == nil {
			j.ok = false
			return
		}
		if j.record {
			j.w.positions[path] = j.w.at(n)
		}
	}
	switch n.Kind {
	case yaml.MappingNode:
		j.object(n, path)
	case yaml.SequenceNode:
		j.array(n, path)
	case yaml.ScalarNode:
		j.scalar(n, path)
	default:
		j.fail(n, path, "unsupported YAML node")
	}
}

// object appends a mapping as a JSON object.
func (j *jsonWriter) object(n *yaml.Node, path string) {
	j.buf = append(j.buf, '{')
	first := true
	j.w.eachPair(n, path, keyPath, func(key string, _, vn *yaml.Node) {
		if !first {
			j.buf = append(j.buf, ',')
		}
		first = false
		j.buf = appendJSONString(j.buf, key)
		j.buf = append(j.buf, ':')
		j.node(vn, keyPath(path, key), false)
	})
	j.buf = append(j.buf, '}')
}

// array appends a sequence as a JSON array.
func (j *jsonWriter) array(n *yaml.Node, path string) {
	j.buf = append(j.buf, '[')
	for i, item := range n.Content {
		if i > 0 {
			j.buf = append(j.buf, ',')
		}
		j.node(item, indexPath(path, i), false)
	}
	j.buf = append(j.buf, ']')
}

// scalar appends a scalar by its resolved YAML type.
func (j *jsonWriter) scalar(n *yaml.Node, path string) {
	if b, ok := yaml11Bool(n); ok && j.w.unknownStrictOnly {
		j.w.nodeadmReads(n, path, "%s is a string in YAML 1.2; "+yaml11Note+"; write %s, or quote it if it is meant as text",
			valueAt(n, path), quoteBool(b), quoteBool(b))
		j.buf = strconv.AppendBool(j.buf, b) // as nodeadm writes it (yaml11.go)
		return
	}
	switch tag := n.ShortTag(); {
	case tag == tagNull:
		j.buf = append(j.buf, "null"...)
	case tag == tagBool:
		j.buf = strconv.AppendBool(j.buf, n.Value == "true" || n.Value == "True" || n.Value == "TRUE")
	case tag == tagInt:
		j.integer(n, path)
	case tag == tagFloat:
		f, ok := finiteNumber(n, tag)
		if !ok {
			j.fail(n, path, "JSON cannot hold "+valueAt(n, path)+"; use a finite number")
			return
		}
		j.buf = strconv.AppendFloat(j.buf, f, 'g', -1, 64)
	case isTextTag(tag):
		j.buf = appendJSONString(j.buf, n.Value)
	default:
		j.fail(n, path, "unsupported YAML tag "+n.Tag+"; remove the tag")
	}
}

// integer appends an integer scalar in decimal.
func (j *jsonWriter) integer(n *yaml.Node, path string) {
	digits := yamlDigits(n.Value)
	if i, err := strconv.ParseInt(digits, 0, 64); err == nil {
		j.buf = strconv.AppendInt(j.buf, i, 10)
		return
	}
	if u, err := strconv.ParseUint(digits, 0, 64); err == nil {
		j.buf = strconv.AppendUint(j.buf, u, 10)
		return
	}
	j.fail(n, path, "integer "+valueAt(n, path)+" is out of range")
}

// fail records a problem and keeps the JSON well-formed with a null.
func (j *jsonWriter) fail(n *yaml.Node, path, msg string) {
	j.ok = false
	j.w.errorf(n, path, "%s", msg)
	j.buf = append(j.buf, "null"...)
}

// appendJSONString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendJSONString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			buf = append(buf, '\\', c)
		case c == '\n':
			buf = append(buf, '\\', 'n')
		case c == '\t':
			buf = append(buf, '\\', 't')
		case c == '\r':
			buf = append(buf, '\\', 'r')
		case c < 0x20:
			buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		case c < utf8.RuneSelf:
			buf = append(buf, c)
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				buf = append(buf, `\ufffd`...)
			} else {
				buf = append(buf, s[i:i+size]...)
			}
			i += size
			continue
		}
		i++
	}
	return append(buf, '"')
}

// quietJSON renders n as JSON without recording positions or problems
// (the caller reports them through a typed walk of the same node).
func (w *walker) quietJSON(n *yaml.Node) []byte {
	w.quiet = true
	defer func() { w.quiet = false }()
	j := jsonWriter{w: w, ok: true}
	j.node(n, "", false)
	return j.buf
}
