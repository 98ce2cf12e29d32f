package kubeletflag

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// ConfigValue returns the JSON the kubelet sets f's config field to when
// the flag is given text: a list, a map of pairs or thresholds, a taint
// list, NUMA reservations, or a scalar. Scalars that read as integers or
// booleans become JSON numbers or booleans (callers whose field wants a
// string may retry with StringJSON).
func ConfigValue(f Form, text string) (json.RawMessage, error) {
	switch f.Kind {
	case KindList:
		return json.Marshal(splitList(text))
	case KindPairs:
		return pairsJSON(text, "=")
	case KindThresholds:
		return pairsJSON(text, "<")
	case KindTaints:
		return taintsJSON(text)
	case KindReservedMemory:
		return reservedMemoryJSON(text)
	default:
		return scalarJSON(text), nil
	}
}

// scalarJSON guesses the JSON type of a scalar flag value.
func scalarJSON(text string) json.RawMessage {
	if _, err := strconv.ParseInt(text, 10, 64); err == nil {
		return json.RawMessage(text)
	}
	if text == "true" || text == "false" {
		return json.RawMessage(text)
	}
	return StringJSON(text)
}

// StringJSON is text as a JSON string.
func StringJSON(text string) json.RawMessage {
	b, _ := json.Marshal(text)
	return b
}

// splitList splits a,b,c, dropping empty items.
func splitList(text string) []string {
	var out []string
	for _, item := range strings.Split(text, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

func pairsJSON(text, sep string) (json.RawMessage, error) {
	_, m, err := Pairs([]string{text}, sep)
	if err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// Taint is one --register-with-taints item (registerWithTaints).
type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// ParseTaints reads --register-with-taints: key=value:Effect,key:Effect,….
func ParseTaints(text string) ([]Taint, error) {
	var out []Taint
	for _, item := range splitList(text) {
		kv, effect, ok := strings.Cut(item, ":")
		if !ok || effect == "" {
			return nil, fmt.Errorf("taint %q has no :Effect", item)
		}
		key, value, _ := strings.Cut(kv, "=")
		if key == "" {
			return nil, fmt.Errorf("taint %q has no key", item)
		}
		out = append(out, Taint{Key: key, Value: value, Effect: effect})
	}
	return out, nil
}

func taintsJSON(text string) (json.RawMessage, error) {
	t, err := ParseTaints(text)
	if err != nil {
		return nil, err
	}
	return json.Marshal(t)
}

// reservedMemoryJSON reads 0:memory=1Gi,hugepages-2Mi=64Mi;1:memory=2Gi.
func reservedMemoryJSON(text string) (json.RawMessage, error) {
	type reservation struct {
		NumaNode int               `json:"numaNode"`
		Limits   map[string]string `json:"limits"`
	}
	var out []reservation
	for _, item := range strings.Split(text, ";") {
		node, limits, ok := strings.Cut(item, ":")
		n, err := strconv.Atoi(node)
		if !ok || err != nil {
			return nil, fmt.Errorf("%q is not <NUMA node>:<resource>=<quantity>,…", item)
		}
		_, m, err := Pairs([]string{limits}, "=")
		if err != nil {
			return nil, err
		}
		out = append(out, reservation{NumaNode: n, Limits: m})
	}
	return json.Marshal(out)
}
