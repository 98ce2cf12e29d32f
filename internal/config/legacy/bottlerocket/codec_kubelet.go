package bottlerocket

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nodeboot/nodeboot/internal/config/validate/suggest"
	"github.com/nodeboot/nodeboot/internal/k8sapi/resource"
)

// percentCodec is an integer percentage (0-100), given as a number or, in
// Bottlerocket's older form, a string of digits.
type percentCodec struct{}

func (percentCodec) decode(d *decoder, p keyPath, v any) (any, bool) {
	switch x := v.(type) {
	case int64:
		return x, d.inRange(p, x, 0, 100)
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		if err != nil {
			d.errorf(p, "expected a whole percentage such as 85, got %s", d.describe(p, v))
			return nil, false
		}
		return n, d.inRange(p, n, 0, 100)
	default:
		d.errorf(p, "expected a whole percentage such as 85, got %s", d.describe(p, v))
		return nil, false
	}
}

func (percentCodec) encode(raw json.RawMessage) (any, error) { return jsonInt(raw, 0, 100) }

// durationProblem says what is wrong with a duration, or "".
func durationProblem(s string) string {
	if s == "" || !isDuration(s) {
		return `is not a duration; write it like "90s", "1m30s" or "500ms" (units h, m, s, ms)`
	}
	if _, err := time.ParseDuration(s); err != nil {
		return "is not a duration: " + err.Error()
	}
	return ""
}

// quantityProblem says what is wrong with a Kubernetes quantity, or "".
func quantityProblem(s string) string {
	if _, err := resource.ParseQuantity(s); err != nil {
		return `is not a quantity; write it like "100Mi", "1Gi" or "500m"`
	}
	return ""
}

// thresholdProblem says what is wrong with an eviction threshold (a
// quantity or a percentage below 100), or "".
func thresholdProblem(s string) string {
	pct, isPercent := strings.CutSuffix(s, "%")
	if !isPercent {
		return quantityProblem(s)
	}
	f, err := strconv.ParseFloat(pct, 64)
	if err != nil || math.IsNaN(f) || f < 0 || f >= 100 {
		return "is not a percentage from 0% up to (not including) 100%"
	}
	return ""
}

func cpusetProblem(s string) string {
	if !isCPUList(s) {
		return `is not a CPU list; write it like "0-1" or "0,2,4-7"`
	}
	return ""
}

// Keys of kube-reserved and system-reserved.
var reservedResources = []string{"cpu", "memory", "ephemeral-storage", "pid"}

// Eviction signals of eviction-hard, eviction-soft and
// eviction-soft-grace-period.
var evictionSignals = []string{
	"memory.available", "nodefs.available", "nodefs.inodesFree",
	"imagefs.available", "imagefs.inodesFree", "containerfs.available",
	"containerfs.inodesFree", "pid.available",
}

// stringMapCodec is a table from a fixed set of keys to checked strings
// (kube-reserved, eviction-hard, …).
type stringMapCodec struct {
	keys  []string
	what  string // names the keys in messages, e.g. "resource"
	check func(string) string
}

func (c stringMapCodec) decode(d *decoder, p keyPath, v any) (any, bool) {
	table, ok := d.table(p, v)
	if !ok {
		return nil, false
	}
	out := make(map[string]string, len(table))
	good := true
	for _, k := range d.orderedKeys(p, table) {
		kp := p.child(k)
		if !slices.Contains(c.keys, k) {
			d.unknownKey(kp, c.what, c.keys)
			good = false
			continue
		}
		s, ok := d.str(kp, table[k])
		if !ok {
			good = false
			continue
		}
		if problem := c.check(s); problem != "" {
			d.errorf(kp, "%q %s", clip(s), problem)
			good = false
			continue
		}
		out[k] = s
	}
	return out, good
}

func (c stringMapCodec) encode(raw json.RawMessage) (any, error) {
	m, err := jsonStringMap(raw)
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(m))
	for k, s := range m {
		if !slices.Contains(c.keys, k) {
			return nil, unexpressible("%s %q has no Bottlerocket key (known: %s)", c.what, k, strings.Join(c.keys, ", "))
		}
		if problem := c.check(s); problem != "" {
			return nil, unexpressible("%s: %q %s", k, s, problem)
		}
		out[k] = s
	}
	return out, nil
}

// unknownKey reports a key that is not among known, with the nearest one.
func (d *decoder) unknownKey(p keyPath, what string, known []string) {
	key := p[len(p)-1]
	if near := suggest.Closest(key, known); near != "" {
		d.errorf(p, "unknown %s %q; did you mean %q?", what, key, near)
		return
	}
	if len(known) <= 12 {
		d.errorf(p, "unknown %s %q; known: %s", what, key, strings.Join(known, ", "))
		return
	}
	d.errorf(p, "unknown %s %q", what, key)
}
