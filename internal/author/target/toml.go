package target

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/nodeboot/nodeboot/internal/author/generate"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/legacy/bottlerocket"
	"github.com/nodeboot/nodeboot/internal/config/tomlsyntax"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// bottlerocketKeys checks Bottlerocket TOML against what t accepts.
func bottlerocketKeys(d userdata.Document, t Target) diag.List {
	switch t {
	case EKSManaged:
		return mngSubset(d)
	case Karpenter:
		return karpenterModel(d)
	}
	return nil
}

// karpenterModel checks settings.kubernetes against Karpenter's model:
// keys it lacks are dropped, values of another type fail the whole user
// data.
func karpenterModel(d userdata.Document) diag.List {
	var tree map[string]any
	if toml.Unmarshal(d.Data, &tree) != nil {
		return nil // the decoder reports the syntax error
	}
	settings, _ := tree["settings"].(map[string]any)
	k8s, _ := settings["kubernetes"].(map[string]any)
	positions := bottlerocket.KeyPositions(d.Data, d.Source.Line)
	var out diag.List
	for _, key := range slices.Sorted(maps.Keys(k8s)) {
		path := "settings.kubernetes." + tomlsyntax.QuoteKey(key)
		kind, known := generate.KarpenterBottlerocketKind(key)
		switch {
		case !known:
			out.Warnf(d.Source, path, positions[path], "Karpenter's Bottlerocket model has no %s setting: Karpenter drops it and the node never sees it (karpenter-provider-aws#8738)", key)
		case !generate.KindOf(k8s[key], kind):
			out.Errorf(d.Source, path, positions[path], "Karpenter's Bottlerocket model takes %s here; it cannot decode this user data and launches no node with it", kind)
		}
	}
	return out
}

// mngSubset applies the TOML subset EKS managed node groups parse when
// they merge Bottlerocket user data; anything else is refused with
// Ec2LaunchTemplateInvalidConfiguration.
func mngSubset(d userdata.Document) diag.List {
	c := mngChecker{src: d.Source, base: max(d.Source.Line, 1)}
	c.parser.Reset(d.Data)
	for c.parser.NextExpression() {
		c.expression(c.parser.Expression())
	}
	return c.out
}

// mngChecker walks one document's expressions.
type mngChecker struct {
	src    diag.Source
	base   int
	parser unstable.Parser
	out    diag.List
}

const mngRefuses = "EKS managed node groups refuse it (Ec2LaunchTemplateInvalidConfiguration: User data was not a TOML format that could be processed)"

func (c *mngChecker) errorf(r unstable.Range, format string, args ...any) {
	pos := diag.Position{}
	if r.Length > 0 {
		start := c.parser.Shape(r).Start
		pos = diag.Position{Line: c.base + start.Line - 1, Column: start.Column}
	}
	c.out.Errorf(c.src, "", pos, "%s; %s", fmt.Sprintf(format, args...), mngRefuses)
}

func (c *mngChecker) expression(e *unstable.Node) {
	header := e.Kind == unstable.Table || e.Kind == unstable.ArrayTable
	if e.Kind != unstable.KeyValue && !header {
		return
	}
	var segments []string
	it := e.Key()
	for it.Next() {
		segments = append(segments, string(c.parser.Raw(it.Node().Raw)))
	}
	it = e.Key()
	for it.Next() {
		c.key(it.Node(), header, strings.Join(segments, "."))
	}
	if e.Kind == unstable.KeyValue {
		c.value(e.Value())
	}
}

// key refuses quotes inside quoted keys and, in headers, quoted keys
// holding a dot ([foo."bar.baz"]).
func (c *mngChecker) key(k *unstable.Node, header bool, full string) {
	raw := c.parser.Raw(k.Raw)
	if len(raw) == 0 || (raw[0] != '"' && raw[0] != '\'') {
		return
	}
	data := string(k.Data)
	switch {
	case containsAny(data, `"'`):
		c.errorf(k.Raw, "the quoted key %s holds a quote", raw)
	case header && containsAny(data, "."):
		c.errorf(k.Raw, "the table header [%s] has the quoted dotted key %s; write its settings as dotted keys (%s.<key> = …) instead", full, raw, full)
	}
}

// value refuses escaped quotes in strings and arrays mixing types.
func (c *mngChecker) value(v *unstable.Node) {
	switch v.Kind {
	case unstable.String:
		raw := c.parser.Raw(v.Raw)
		if containsAny(string(raw), `\`) && containsAny(string(v.Data), `"'`) {
			c.errorf(v.Raw, "the string %s holds an escaped quote", raw)
		}
	case unstable.Array:
		var first unstable.Kind
		it := v.Children()
		for i := 0; it.Next(); i++ {
			item := it.Node()
			if i == 0 {
				first = item.Kind
			} else if item.Kind != first {
				c.errorf(item.Raw, "the array mixes %s and %s values", kindName(first), kindName(item.Kind))
				return
			}
			c.value(item)
		}
	case unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			kv := it.Node()
			keys := kv.Key()
			for keys.Next() {
				c.key(keys.Node(), false, "")
			}
			c.value(kv.Value())
		}
	}
}

func kindName(k unstable.Kind) string {
	switch k {
	case unstable.Integer:
		return "integer"
	case unstable.Float:
		return "float"
	case unstable.String:
		return "string"
	case unstable.Bool:
		return "boolean"
	case unstable.Array:
		return "array"
	case unstable.InlineTable:
		return "table"
	}
	return "date/time"
}

func containsAny(s, chars string) bool { return strings.ContainsAny(s, chars) }
