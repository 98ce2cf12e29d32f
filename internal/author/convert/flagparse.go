package convert

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
)

// parseFlagValue reads the value of the flag f back into the JSON its config field takes.
// Scalars that read as integers or booleans become JSON numbers or
// booleans; retry with stringJSON when the field wants a string.
func parseFlagValue(f kubeletflag.Form, text string) (json.RawMessage, error) {
	switch f.Kind {
	case kubeletflag.KindList:
		return json.Marshal(splitList(text))
	case kubeletflag.KindPairs:
		return pairsJSON(text, "=")
	case kubeletflag.KindThresholds:
		return pairsJSON(text, "<")
	case kubeletflag.KindTaints:
		return taintsJSON(text)
	case kubeletflag.KindReservedMemory:
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

// parsePairs reads k<sep>v,… into a map, as the kubelet reads a map flag.
func parsePairs(text, sep string) (map[string]string, error) {
	_, out, err := kubeletflag.Pairs([]string{text}, sep)
	return out, err
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
