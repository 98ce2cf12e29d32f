package bottlerocket

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// Result is one Bottlerocket settings document converted to the hub.
type Result struct {
	// Spec is what the settings ask for. When the problems returned with it
	// include errors it is best effort and must not be applied.
	Spec hub.Spec
	// Positions maps hub field paths ("spec.kubelet.config[maxPods]",
	// "spec.kubelet.flags[0]", "spec.cluster.name") to the line of the
	// setting they came from.
	Positions diag.Positions
	// Ignored lists, in document order, the leaf keys of the settings that
	// were read but are not applied ("settings.host-containers.admin.enabled",
	// "settings.kubernetes.static-pods.web.manifest"); each also got a
	// warning on its line.
	Ignored []string
}

// Decode reads Bottlerocket TOML user data (already inflated when it was
// gzip-compressed) and returns its hub spec with every problem found: TOML
// syntax, unknown or mistyped settings, invalid values, a missing
// cluster-name. It never panics: an internal failure becomes a problem.
func Decode(doc userdata.Document) (res Result, problems diag.List) {
	d := newDecoder(doc)
	defer func() {
		if r := recover(); r != nil {
			d.problems.Errorf(doc.Source, "", diag.Position{Line: d.base}, "internal error while decoding Bottlerocket settings (please report this): %v", r)
			res, problems = d.result(), diag.Limit(d.problems, d.src)
		}
	}()
	if tree, ok := d.parse(); ok {
		d.document(tree)
		d.validate()
	}
	sortByPosition(d.problems)
	return d.result(), diag.Limit(d.problems, d.src)
}

// decoder holds the state of one Decode call.
type decoder struct {
	src      diag.Source
	base     int
	data     []byte
	index    keyIndex
	spec     hub.Spec
	problems diag.List
	ignored  []string
	// positions maps hub paths to setting positions; origins maps the same
	// hub paths to the setting that produced them, for messages.
	positions diag.Positions
	origins   map[string]keyPath
	// configFrom remembers which setting set each kubelet config key.
	configFrom map[string]keyPath
	// flags waits for flushFlags; siblings is the settings.kubernetes table.
	flags    map[string]pendingFlag
	siblings map[string]any
}

func newDecoder(doc userdata.Document) *decoder {
	return &decoder{
		src:        doc.Source,
		base:       max(doc.Source.Line, 1),
		data:       doc.Data,
		index:      keyIndex{},
		positions:  diag.Positions{},
		origins:    map[string]keyPath{},
		configFrom: map[string]keyPath{},
	}
}

func (d *decoder) result() Result {
	return Result{Spec: d.spec, Positions: d.positions, Ignored: d.ignored}
}

// errorf reports an error about the setting at p, placed on its line.
func (d *decoder) errorf(p keyPath, format string, args ...any) {
	d.problems.Errorf(d.src, p.String(), d.at(p), format, args...)
}

// warnf reports a warning about the setting at p.
func (d *decoder) warnf(p keyPath, format string, args ...any) {
	d.problems.Warnf(d.src, p.String(), d.at(p), format, args...)
}

// at is the position of p's key, or of its nearest ancestor, or the start
// of the document.
func (d *decoder) at(p keyPath) diag.Position {
	if pos := d.index.at(p); !pos.IsZero() {
		return pos
	}
	return diag.Position{Line: d.base}
}

// ignore records a setting that is read but not applied, with one warning
// per leaf key on its own line: a table (settings.host-containers) is
// walked in document order; a value, an array or an empty table is a leaf.
func (d *decoder) ignore(p keyPath, v any, why string) {
	table, ok := v.(map[string]any)
	if !ok || len(table) == 0 {
		d.ignored = append(d.ignored, p.String())
		d.warnf(p, "not applied: %s", why)
		return
	}
	for _, key := range d.orderedKeys(p, table) {
		d.ignore(p.child(key), table[key], why)
	}
}

// record notes that the hub field at hubPath came from the setting at p.
func (d *decoder) record(hubPath string, p keyPath) {
	d.positions[hubPath] = d.at(p)
	d.origins[hubPath] = p
}

// setConfig sets kubelet config key to value (JSON-encodable), read from
// the setting at p whose TOML value was raw; keys of a table value get
// their own positions.
func (d *decoder) setConfig(key string, value any, p keyPath, raw any) {
	if prev, dup := d.configFrom[key]; dup {
		d.errorf(p, "sets kubelet %s, which %s already sets; keep one of them", key, prev)
		return
	}
	b, err := json.Marshal(value)
	if err != nil {
		d.errorf(p, "cannot be written as JSON: %v", err)
		return
	}
	if d.spec.Kubelet.Config == nil {
		d.spec.Kubelet.Config = map[string]json.RawMessage{}
	}
	d.spec.Kubelet.Config[key] = b
	d.configFrom[key] = p
	hubPath := configPath(key)
	d.record(hubPath, p)
	if table, ok := raw.(map[string]any); ok {
		for k := range table {
			d.record(hubPath+"["+k+"]", p.child(k))
		}
	}
}

// addFlag appends a kubelet flag that came from the setting at p.
func (d *decoder) addFlag(flag string, p keyPath) {
	d.record(fmt.Sprintf("spec.kubelet.flags[%d]", len(d.spec.Kubelet.Flags)), p)
	d.spec.Kubelet.Flags = append(d.spec.Kubelet.Flags, flag)
}

// configPath is the hub field path of a kubelet config key.
func configPath(key string) string { return "spec.kubelet.config[" + key + "]" }

// sortByPosition orders problems by line and column, keeping the order
// they were found in otherwise.
func sortByPosition(ps diag.List) {
	slices.SortStableFunc(ps, func(a, b diag.Problem) int {
		if a.Position.Line != b.Position.Line {
			return a.Position.Line - b.Position.Line
		}
		return a.Position.Column - b.Position.Column
	})
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
