package bottlerocket

import (
	"cmp"
	"encoding/json"
	"math"
	"net/netip"
	"slices"
	"strconv"
)

// dnsIPsCodec is cluster-dns-ip: one IP address or an array of them; the
// kubelet's clusterDNS is always a list. One address is written back as a
// string, the form every Bottlerocket release accepts.
type dnsIPsCodec struct{}

func (dnsIPsCodec) decode(d *decoder, p keyPath, v any) (any, bool) {
	var ips []string
	switch x := v.(type) {
	case string:
		ips = []string{x}
	case []any:
		list, ok := d.stringList(p, v)
		if !ok {
			return nil, false
		}
		if len(list) == 0 {
			d.errorf(p, "must list at least one IP address")
			return nil, false
		}
		ips = list
	default:
		d.errorf(p, "expected an IP address or an array of them, got %s", d.describe(p, x))
		return nil, false
	}
	for i, ip := range ips {
		if _, err := netip.ParseAddr(ip); err != nil {
			if len(ips) == 1 {
				d.errorf(p, "%q is not an IP address", clip(ip))
			} else {
				d.itemErrorf(p, i, "%q is not an IP address", clip(ip))
			}
			return nil, false
		}
	}
	return ips, true
}

func (dnsIPsCodec) encode(raw json.RawMessage) (any, error) {
	list, err := stringListCodec{}.encode(raw)
	if err != nil {
		return nil, err
	}
	items := list.([]any)
	for _, item := range items {
		if _, err := netip.ParseAddr(item.(string)); err != nil {
			return nil, unexpressible("%q is not an IP address", item)
		}
	}
	switch len(items) {
	case 0:
		return nil, unexpressible("the list is empty")
	case 1:
		return items[0], nil
	default:
		return items, nil
	}
}

// CPU manager policy options the kubelet knows.
var cpuManagerOptions = []string{
	"full-pcpus-only", "distribute-cpus-across-numa", "align-by-socket",
	"distribute-cpus-across-cores", "strict-cpu-reservation", "prefer-align-cpus-by-uncorecache",
}

// cpuOptionsCodec is cpu-manager-policy-options: an array of option names,
// each turned on (the kubelet's map option → "true").
type cpuOptionsCodec struct{}

func (cpuOptionsCodec) decode(d *decoder, p keyPath, v any) (any, bool) {
	list, ok := d.stringList(p, v)
	if !ok {
		return nil, false
	}
	out := make(map[string]string, len(list))
	for i, opt := range list {
		if !slices.Contains(cpuManagerOptions, opt) {
			d.itemErrorf(p, i, "unknown CPU manager policy option %q; known: %s", clip(opt), quotedList(cpuManagerOptions))
			return nil, false
		}
		out[opt] = "true"
	}
	return out, true
}

func (cpuOptionsCodec) encode(raw json.RawMessage) (any, error) {
	m, err := jsonStringMap(raw)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, len(m))
	for _, opt := range sortedKeys(m) {
		if m[opt] != "true" {
			return nil, unexpressible("option %s=%s: Bottlerocket can only turn options on", opt, m[opt])
		}
		out = append(out, opt)
	}
	return out, nil
}

// Keys of topology-manager-policy-options.
const (
	preferClosestNUMA = "prefer-closest-numa-nodes"
	maxAllowableNUMA  = "max-allowable-numa-nodes"
)

// topologyOptionsCodec is topology-manager-policy-options: a table with a
// boolean and an integer, which the kubelet takes as strings.
type topologyOptionsCodec struct{}

func (topologyOptionsCodec) decode(d *decoder, p keyPath, v any) (any, bool) {
	table, ok := d.table(p, v)
	if !ok {
		return nil, false
	}
	out := map[string]string{}
	good := true
	for _, k := range d.orderedKeys(p, table) {
		kp := p.child(k)
		switch k {
		case preferClosestNUMA:
			b, ok := d.boolean(kp, table[k])
			good = good && ok
			out[k] = strconv.FormatBool(b)
		case maxAllowableNUMA:
			n, ok := d.integer(kp, table[k], 1, math.MaxInt32)
			good = good && ok
			out[k] = strconv.FormatInt(n, 10)
		default:
			d.unknownKey(kp, "topology manager policy option", []string{preferClosestNUMA, maxAllowableNUMA})
			good = false
		}
	}
	return out, good
}

func (topologyOptionsCodec) encode(raw json.RawMessage) (any, error) {
	m, err := jsonStringMap(raw)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for k, s := range m {
		switch k {
		case preferClosestNUMA:
			b, err := strconv.ParseBool(s)
			if err != nil {
				return nil, unexpressible("%s=%q is not a boolean", k, s)
			}
			out[k] = b
		case maxAllowableNUMA:
			n, err := strconv.ParseInt(s, 10, 32)
			if err != nil {
				return nil, unexpressible("%s=%q is not an integer", k, s)
			}
			out[k] = n
		default:
			return nil, unexpressible("option %s has no Bottlerocket key", k)
		}
	}
	return out, nil
}

// Keys of one memory-manager-reserved-memory entry besides enabled.
var reservedMemoryResources = []string{"memory", "hugepages-2Mi", "hugepages-1Gi"}

// reservedMemoryCodec is memory-manager-reserved-memory: a table from NUMA
// node number to {enabled, memory, hugepages-2Mi, hugepages-1Gi}; the
// enabled entries become the kubelet's reservedMemory list.
type reservedMemoryCodec struct{}

// memoryReservation is one kubelet reservedMemory item.
type memoryReservation struct {
	NumaNode int32             `json:"numaNode"`
	Limits   map[string]string `json:"limits"`
}

func (reservedMemoryCodec) decode(d *decoder, p keyPath, v any) (any, bool) {
	table, ok := d.table(p, v)
	if !ok {
		return nil, false
	}
	out := []memoryReservation{}
	good := true
	for _, k := range d.orderedKeys(p, table) {
		r, ok := d.memoryReservation(p.child(k), table[k])
		good = good && ok
		if ok && r != nil {
			out = append(out, *r)
		}
	}
	slices.SortFunc(out, func(a, b memoryReservation) int { return cmp.Compare(a.NumaNode, b.NumaNode) })
	return out, good
}

// memoryReservation reads one NUMA node's entry; nil when not enabled.
func (d *decoder) memoryReservation(p keyPath, v any) (*memoryReservation, bool) {
	node, err := strconv.ParseInt(p[len(p)-1], 10, 32)
	if err != nil || node < 0 {
		d.errorf(p, "the key must be a NUMA node number such as 0")
		return nil, false
	}
	entry, ok := d.table(p, v)
	if !ok {
		return nil, false
	}
	r := &memoryReservation{NumaNode: int32(node), Limits: map[string]string{}}
	enabled, good := false, true
	for _, k := range d.orderedKeys(p, entry) {
		kp := p.child(k)
		switch {
		case k == "enabled":
			enabled, ok = d.boolean(kp, entry[k])
			good = good && ok
		case slices.Contains(reservedMemoryResources, k):
			s, ok := d.str(kp, entry[k])
			if ok && quantityProblem(s) != "" {
				d.errorf(kp, "%q %s", clip(s), quantityProblem(s))
				ok = false
			}
			good = good && ok
			r.Limits[k] = s
		default:
			d.unknownKey(kp, "memory reservation key", append([]string{"enabled"}, reservedMemoryResources...))
			good = false
		}
	}
	if !enabled {
		return nil, good
	}
	return r, good
}

func (reservedMemoryCodec) encode(raw json.RawMessage) (any, error) {
	var list []memoryReservation
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, unexpressible("expected a list of {numaNode, limits}: %v", err)
	}
	out := map[string]any{}
	for _, r := range list {
		key := strconv.Itoa(int(r.NumaNode))
		if _, dup := out[key]; dup || r.NumaNode < 0 {
			return nil, unexpressible("NUMA node %d is listed twice or negative", r.NumaNode)
		}
		entry := map[string]any{"enabled": true}
		for res, q := range r.Limits {
			if !slices.Contains(reservedMemoryResources, res) {
				return nil, unexpressible("NUMA node %d: resource %s has no Bottlerocket key", r.NumaNode, res)
			}
			entry[res] = q
		}
		out[key] = entry
	}
	return out, nil
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
