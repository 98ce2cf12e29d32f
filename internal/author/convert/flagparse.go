package convert

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// kubeletFlag is one --name=value argument split up.
type kubeletFlag struct {
	name  string // without dashes
	value string
}

// splitFlag splits "--name=value" (or "-v=2"); ok is false for anything
// else, including "--name value" given as one list item.
func splitFlag(arg string) (kubeletFlag, bool) {
	trimmed := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	if trimmed == arg {
		return kubeletFlag{}, false
	}
	name, value, ok := strings.Cut(trimmed, "=")
	if !ok || name == "" {
		return kubeletFlag{}, false
	}
	return kubeletFlag{name: name, value: value}, true
}

// flagFormByFlag returns the config field a flag sets.
func flagFormByFlag(name string) (flagForm, bool) {
	for _, f := range kubeletFlagForms {
		if f.flag == name {
			return f, true
		}
	}
	return flagForm{}, false
}

// parseValue reads a flag value back into the JSON its config field takes.
// Scalars that read as integers or booleans become JSON numbers or
// booleans; retry with stringJSON when the field wants a string.
func (f flagForm) parseValue(text string) (json.RawMessage, error) {
	switch f.kind {
	case kindList:
		return json.Marshal(splitList(text))
	case kindPairs:
		return pairsJSON(text, "=")
	case kindThresholds:
		return pairsJSON(text, "<")
	case kindTaints:
		return taintsJSON(text)
	case kindReservedMemory:
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
	return stringJSON(text)
}

// stringJSON is text as a JSON string.
func stringJSON(text string) json.RawMessage {
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

// parsePairs reads k<sep>v,… into a map.
func parsePairs(text, sep string) (map[string]string, error) {
	out := map[string]string{}
	for _, item := range splitList(text) {
		k, v, ok := strings.Cut(item, sep)
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not key%svalue", item, sep)
		}
		out[k] = v
	}
	return out, nil
}

func pairsJSON(text, sep string) (json.RawMessage, error) {
	m, err := parsePairs(text, sep)
	if err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// taint is one registerWithTaints item.
type taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// parseTaints reads key=value:Effect,key:Effect,….
func parseTaints(text string) ([]taint, error) {
	var out []taint
	for _, item := range splitList(text) {
		kv, effect, ok := strings.Cut(item, ":")
		if !ok || effect == "" {
			return nil, fmt.Errorf("taint %q has no :Effect", item)
		}
		key, value, _ := strings.Cut(kv, "=")
		if key == "" {
			return nil, fmt.Errorf("taint %q has no key", item)
		}
		out = append(out, taint{Key: key, Value: value, Effect: effect})
	}
	return out, nil
}

func taintsJSON(text string) (json.RawMessage, error) {
	t, err := parseTaints(text)
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
		m, err := parsePairs(limits, "=")
		if err != nil {
			return nil, err
		}
		out = append(out, reservation{NumaNode: n, Limits: m})
	}
	return json.Marshal(out)
}
