package convert

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	yaml "sigs.k8s.io/yaml/goyaml.v3"
)

// mapping is a YAML mapping built in a fixed key order; empty values are
// left out so that only set fields are written.
type mapping struct{ node *yaml.Node }

func newMapping() *mapping { return &mapping{node: &yaml.Node{Kind: yaml.MappingNode}} }

func (m *mapping) empty() bool { return len(m.node.Content) == 0 }

// set adds key: value.
func (m *mapping) set(key string, value *yaml.Node) {
	m.node.Content = append(m.node.Content, strNode(key), value)
}

// str adds a string field when it is not empty.
func (m *mapping) str(key, value string) {
	if value != "" {
		m.set(key, strNode(value))
	}
}

// block adds a multi-line string field as a literal block (|).
func (m *mapping) block(key, value string) {
	if value != "" {
		n := strNode(value)
		n.Style = yaml.LiteralStyle
		m.set(key, n)
	}
}

// boolPtr adds a *bool field when it is set.
func (m *mapping) boolPtr(key string, value *bool) {
	if value != nil {
		m.set(key, boolNode(*value))
	}
}

// boolean adds a bool field when it is true.
func (m *mapping) boolean(key string, value bool) {
	if value {
		m.set(key, boolNode(true))
	}
}

// integer adds an int field when it is not zero.
func (m *mapping) integer(key string, value int) {
	if value != 0 {
		m.set(key, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(value)})
	}
}

// strings adds a list of strings when it is not empty.
func (m *mapping) strings(key string, values []string) {
	if len(values) == 0 {
		return
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, v := range values {
		seq.Content = append(seq.Content, strNode(v))
	}
	m.set(key, seq)
}

// stringMap adds a map of strings, keys sorted, when it is not empty.
func (m *mapping) stringMap(key string, values map[string]string) {
	if len(values) == 0 {
		return
	}
	inner := newMapping()
	for _, k := range sortedKeys(values) {
		inner.set(k, strNode(values[k]))
	}
	m.set(key, inner.node)
}

// jsonObject adds a map of JSON values, keys sorted, when it is not empty.
// An error names the value as path[key].
func (m *mapping) jsonObject(key, path string, values map[string]json.RawMessage) error {
	if len(values) == 0 {
		return nil
	}
	inner := newMapping()
	for _, k := range sortedKeys(values) {
		v, err := jsonNode(values[k])
		if err != nil {
			return fmt.Errorf("%s[%s]: %w", path, k, err)
		}
		inner.set(k, v)
	}
	m.set(key, inner.node)
	return nil
}

// child adds a nested mapping when it is not empty.
func (m *mapping) child(key string, c *mapping) {
	if !c.empty() {
		m.set(key, c.node)
	}
}

func strNode(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func boolNode(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(b)}
}

// jsonNode converts a JSON value to YAML, keeping the order of object keys
// and the spelling of numbers.
func jsonNode(raw json.RawMessage) (*yaml.Node, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	n, err := readJSONNode(dec)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON %s: %w", clipBytes(raw), err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("invalid JSON %s: trailing data", clipBytes(raw))
	}
	return n, nil
}

// readJSONNode reads one JSON value from dec as a YAML node.
func readJSONNode(dec *json.Decoder) (*yaml.Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		return readJSONContainer(dec, t)
	case string:
		return strNode(t), nil
	case json.Number:
		tag := "!!float"
		if _, err := t.Int64(); err == nil {
			tag = "!!int"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: t.String()}, nil
	case bool:
		return boolNode(t), nil
	default:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
}

// readJSONContainer reads the rest of an object or array opened by open.
func readJSONContainer(dec *json.Decoder, open json.Delim) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.SequenceNode}
	if open == '{' {
		n.Kind = yaml.MappingNode
	}
	for dec.More() {
		if n.Kind == yaml.MappingNode {
			key, err := dec.Token()
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, strNode(key.(string)))
		}
		item, err := readJSONNode(dec)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, item)
	}
	if _, err := dec.Token(); err != nil { // closing delimiter
		return nil, err
	}
	return n, nil
}

// encodeYAML writes a document with two-space indentation.
func encodeYAML(root *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, fmt.Errorf("encoding YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encoding YAML: %w", err)
	}
	return b.Bytes(), nil
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// clipBytes shortens raw JSON quoted in messages.
func clipBytes(raw []byte) string {
	const limit = 40
	if len(raw) <= limit {
		return string(raw)
	}
	return string(raw[:limit]) + "…"
}
