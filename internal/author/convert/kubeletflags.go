package convert

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
)

// errNoFlagForm is returned when a kubelet config value has no flag spelling.
var errNoFlagForm = errors.New("no kubelet flag spelling")

// formatFlagValue renders a JSON value (as decodeJSON reads it) as the
// value of the flag f.
func formatFlagValue(f kubeletflag.Form, v any) (string, error) {
	switch f.Kind {
	case kubeletflag.KindList:
		return listFlag(v)
	case kubeletflag.KindPairs:
		return pairsFlag("=")(v)
	case kubeletflag.KindThresholds:
		return pairsFlag("<")(v)
	case kubeletflag.KindTaints:
		return taintsFlag(v)
	case kubeletflag.KindReservedMemory:
		return reservedMemoryFlag(v)
	default:
		return scalarFlag(v)
	}
}

// decodeJSON reads raw with numbers kept as json.Number.
func decodeJSON(raw json.RawMessage) (any, error) {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid JSON %s: %w", clipBytes(raw), err)
	}
	return v, nil
}

// scalarText renders a JSON scalar as flag text.
func scalarText(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	case bool:
		return strconv.FormatBool(x), nil
	}
	return "", fmt.Errorf("%w: expected a single value", errNoFlagForm)
}

func scalarFlag(v any) (string, error) { return scalarText(v) }

// listFlag renders a list as a,b,c.
func listFlag(v any) (string, error) {
	items, ok := v.([]any)
	if !ok {
		return "", fmt.Errorf("%w: expected a list", errNoFlagForm)
	}
	parts := make([]string, len(items))
	for i, item := range items {
		s, err := scalarText(item)
		if err != nil {
			return "", err
		}
		parts[i] = s
	}
	return strings.Join(parts, ","), nil
}

// pairsFlag renders an object as k<sep>v,… with keys sorted (the kubelet's
// map flags: --kube-reserved=cpu=100m, --eviction-hard=memory.available<100Mi).
func pairsFlag(sep string) func(v any) (string, error) {
	return func(v any) (string, error) {
		obj, ok := v.(map[string]any)
		if !ok {
			return "", fmt.Errorf("%w: expected an object", errNoFlagForm)
		}
		parts := make([]string, 0, len(obj))
		for _, k := range sortedKeys(obj) {
			s, err := scalarText(obj[k])
			if err != nil {
				return "", err
			}
			parts = append(parts, k+sep+s)
		}
		return strings.Join(parts, ","), nil
	}
}

// taintsFlag renders registerWithTaints as key=value:Effect,…
func taintsFlag(v any) (string, error) {
	items, ok := v.([]any)
	if !ok {
		return "", fmt.Errorf("%w: expected a list of taints", errNoFlagForm)
	}
	parts := make([]string, len(items))
	for i, item := range items {
		t, ok := item.(map[string]any)
		key, _ := t["key"].(string)
		value, _ := t["value"].(string)
		effect, _ := t["effect"].(string)
		if !ok || key == "" || effect == "" {
			return "", fmt.Errorf("%w: taint %d needs key and effect", errNoFlagForm, i)
		}
		parts[i] = taintText(key, value, effect)
	}
	return strings.Join(parts, ","), nil
}

// taintText is one --register-with-taints item.
func taintText(key, value, effect string) string {
	if value == "" {
		return key + ":" + effect
	}
	return key + "=" + value + ":" + effect
}

// reservedMemoryFlag renders reservedMemory as 0:memory=1Gi,hugepages-2Mi=64Mi;1:memory=2Gi.
func reservedMemoryFlag(v any) (string, error) {
	items, ok := v.([]any)
	if !ok {
		return "", fmt.Errorf("%w: expected a list", errNoFlagForm)
	}
	parts := make([]string, len(items))
	for i, item := range items {
		r, ok := item.(map[string]any)
		if !ok {
			return "", fmt.Errorf("%w: item %d is not an object", errNoFlagForm, i)
		}
		node, err := scalarText(r["numaNode"])
		if err != nil {
			return "", err
		}
		limits, err := pairsFlag("=")(r["limits"])
		if err != nil {
			return "", err
		}
		parts[i] = node + ":" + limits
	}
	return strings.Join(parts, ";"), nil
}

// configFlag renders one config field as --flag=value.
func configFlag(form kubeletflag.Form, raw json.RawMessage) (string, error) {
	v, err := decodeJSON(raw)
	if err != nil {
		return "", err
	}
	value, err := formatFlagValue(form, v)
	if err != nil {
		return "", err
	}
	return "--" + form.Flag + "=" + value, nil
}

// unsafeFlagChars cannot appear in a kubelet argument: the bootstrap
// scripts split the arguments on whitespace, and bootstrap.sh writes them
// into a quoted systemd Environment= line.
const unsafeFlagChars = " \t\r\n'\"\\`$"

// flagTextProblem says why a kubelet argument cannot be carried, or "".
// A % is allowed unless a letter or % follows it, which systemd would read
// as a specifier (eviction thresholds such as nodefs.available<10% pass).
func flagTextProblem(arg string) string {
	if i := strings.IndexAny(arg, unsafeFlagChars); i >= 0 {
		return fmt.Sprintf("contains %q, which cannot be passed through the bootstrap script's kubelet arguments", arg[i])
	}
	for i := strings.IndexByte(arg, '%'); i >= 0 && i+1 < len(arg); i = nextPercent(arg, i) {
		if c := arg[i+1]; c == '%' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return fmt.Sprintf("contains %q, which systemd would expand as a specifier", arg[i:i+2])
		}
	}
	return ""
}

// nextPercent returns the index of the next % after i, or -1.
func nextPercent(s string, i int) int {
	j := strings.IndexByte(s[i+1:], '%')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}
