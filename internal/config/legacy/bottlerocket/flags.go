package bottlerocket

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/validate/suggest"
	"github.com/nodeboot/nodeboot/internal/k8sapi/validation"
)

// Kubelet flags that settings become, in the order they are added.
const (
	flagNodeLabels         = "--node-labels"
	flagRegisterWithTaints = "--register-with-taints"
	flagNodeIP             = "--node-ip"
	flagHostnameOverride   = "--hostname-override"
	flagVerbosity          = "--v"
)

var flagOrder = []string{flagNodeLabels, flagRegisterWithTaints, flagNodeIP, flagHostnameOverride, flagVerbosity}

// pendingFlag is a flag waiting for flushFlags.
type pendingFlag struct {
	value string
	from  keyPath
}

// queueFlag remembers flag=value from the setting at p.
func (d *decoder) queueFlag(flag, value string, p keyPath) {
	if d.flags == nil {
		d.flags = map[string]pendingFlag{}
	}
	d.flags[flag] = pendingFlag{value: value, from: p}
}

// flushFlags appends the queued flags to spec.kubelet.flags in flagOrder.
func (d *decoder) flushFlags() {
	for _, flag := range flagOrder {
		if f, ok := d.flags[flag]; ok {
			d.addFlag(flag+"="+f.value, f.from)
		}
	}
}

// nodeLabels becomes --node-labels=k=v,… with keys sorted.
func (d *decoder) nodeLabels(p keyPath, v any) {
	table, ok := d.table(p, v)
	if !ok {
		return
	}
	var pairs []string
	for _, key := range sortedKeys(table) {
		kp := p.child(key)
		value, ok := d.str(kp, table[key])
		if !ok || !d.labelKey(kp, key) {
			continue
		}
		if errs := validation.IsValidLabelValue(value); len(errs) > 0 {
			d.errorf(kp, "label value %q is invalid: %s", clip(value), errs[0])
			continue
		}
		pairs = append(pairs, key+"="+value)
	}
	if len(pairs) > 0 {
		d.queueFlag(flagNodeLabels, strings.Join(pairs, ","), p)
	}
}

// labelKey checks a label or taint key ([prefix/]name).
func (d *decoder) labelKey(p keyPath, key string) bool {
	if errs := validation.IsQualifiedName(key); len(errs) > 0 {
		d.errorf(p, "key %q is invalid: %s", clip(key), errs[0])
		return false
	}
	return true
}

// Taint effects the kubelet accepts.
var taintEffects = []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}

// nodeTaints becomes --register-with-taints=k=v:Effect,… with keys sorted;
// each key takes a "value:Effect" string or, since Bottlerocket 1.14, an
// array of them.
func (d *decoder) nodeTaints(p keyPath, v any) {
	table, ok := d.table(p, v)
	if !ok {
		return
	}
	var taints []string
	for _, key := range sortedKeys(table) {
		kp := p.child(key)
		if !d.labelKey(kp, key) {
			continue
		}
		for _, t := range d.taintValues(kp, table[key]) {
			taints = append(taints, taintFlagValue(key, t))
		}
	}
	if len(taints) > 0 {
		d.queueFlag(flagRegisterWithTaints, strings.Join(taints, ","), p)
	}
}

// taintValues reads the values of one taint key; bad ones are reported and
// left out.
func (d *decoder) taintValues(p keyPath, v any) []string {
	var values []string
	switch x := v.(type) {
	case string:
		values = []string{x}
	case []any:
		list, ok := d.stringList(p, v)
		if !ok {
			return nil
		}
		values = list
	default:
		d.errorf(p, `expected "value:Effect" or an array of them, got %s`, d.describe(p, v))
		return nil
	}
	good := values[:0:0]
	for i, t := range values {
		if problem := taintProblem(t); problem != "" {
			if len(values) == 1 && !isArray(v) {
				d.errorf(p, "taint %q %s", clip(t), problem)
			} else {
				d.itemErrorf(p, i, "taint %q %s", clip(t), problem)
			}
			continue
		}
		good = append(good, t)
	}
	return good
}

func isArray(v any) bool { _, ok := v.([]any); return ok }

// taintProblem says what is wrong with a "value:Effect" string, or "".
func taintProblem(t string) string {
	_, effect, ok := splitTaint(t)
	if !ok {
		return `is invalid: write "value:Effect" or ":Effect", the value being empty or up to 63 letters, digits, '-', '_' and '.' starting and ending with a letter or digit`
	}
	if !slices.Contains(taintEffects, effect) {
		if near := suggest.Closest(effect, taintEffects); near != "" {
			return "has an unknown effect " + strconv.Quote(effect) + "; did you mean " + strconv.Quote(near) + "?"
		}
		return "has an unknown effect " + strconv.Quote(effect) + "; use NoSchedule, PreferNoSchedule or NoExecute"
	}
	return ""
}

// taintFlagValue renders one taint for --register-with-taints: key=value:Effect,
// or key:Effect when the value is empty.
func taintFlagValue(key, t string) string {
	value, effect, _ := strings.Cut(t, ":")
	if value == "" {
		return key + ":" + effect
	}
	return key + "=" + value + ":" + effect
}

// nodeIP becomes --node-ip.
func (d *decoder) nodeIP(p keyPath, v any) {
	s, ok := d.str(p, v)
	if !ok {
		return
	}
	if _, err := netip.ParseAddr(s); err != nil {
		d.errorf(p, "%q is not an IP address", clip(s))
		return
	}
	d.queueFlag(flagNodeIP, s, p)
}

// hostnameOverride becomes --hostname-override.
func (d *decoder) hostnameOverride(p keyPath, v any) {
	s, ok := d.str(p, v)
	if !ok {
		return
	}
	if len(s) > 253 || !isHostname(s) {
		d.errorf(p, "%q is not a hostname: use letters, digits, - and dots, at most 253 characters", clip(s))
		return
	}
	d.queueFlag(flagHostnameOverride, s, p)
}

// logLevel becomes --v.
func (d *decoder) logLevel(p keyPath, v any) {
	if n, ok := d.integer(p, v, 0, 255); ok {
		d.queueFlag(flagVerbosity, strconv.FormatInt(n, 10), p)
	}
}
