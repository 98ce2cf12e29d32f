package convert

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/legacy/bottlerocket"
)

// tomlTable is a TOML table built in a fixed key order. Values are
// strings, int64, float64, bool, []any of those, or *tomlTable.
type tomlTable struct {
	keys   []string
	values map[string]any
}

func newTOMLTable() *tomlTable { return &tomlTable{values: map[string]any{}} }

// set adds or replaces key; map[string]any values become sub-tables with
// sorted keys.
func (t *tomlTable) set(key string, v any) {
	if m, ok := v.(map[string]any); ok {
		sub := newTOMLTable()
		for _, k := range sortedKeys(m) {
			sub.set(k, m[k])
		}
		v = sub
	}
	if _, exists := t.values[key]; !exists {
		t.keys = append(t.keys, key)
	}
	t.values[key] = v
}

// table returns the sub-table at key, creating it.
func (t *tomlTable) table(key string) *tomlTable {
	if sub, ok := t.values[key].(*tomlTable); ok {
		return sub
	}
	sub := newTOMLTable()
	t.set(key, sub)
	return sub
}

// has reports whether key is set.
func (t *tomlTable) has(key string) bool {
	_, ok := t.values[key]
	return ok
}

// empty reports a table without keys.
func (t *tomlTable) empty() bool { return len(t.keys) == 0 }

// writeTOML renders t: each table's plain keys under its [header], then
// its sub-tables. Tables without plain keys get no header of their own;
// empty tables are left out.
func writeTOML(t *tomlTable) (string, error) {
	var b strings.Builder
	if err := writeTable(&b, nil, t); err != nil {
		return "", err
	}
	return strings.TrimPrefix(b.String(), "\n"), nil
}

func writeTable(b *strings.Builder, path []string, t *tomlTable) error {
	var subs []string
	wroteHeader := false
	for _, k := range t.keys {
		v := t.values[k]
		if _, isTable := v.(*tomlTable); isTable {
			subs = append(subs, k)
			continue
		}
		if !wroteHeader && len(path) > 0 {
			b.WriteString("\n[" + dottedKey(path) + "]\n")
			wroteHeader = true
		}
		text, err := tomlValue(v)
		if err != nil {
			return fmt.Errorf("%s: %w", dottedKey(append(path, k)), err)
		}
		b.WriteString(bottlerocket.QuoteKey(k) + " = " + text + "\n")
	}
	for _, k := range subs {
		sub := t.values[k].(*tomlTable)
		if sub.empty() {
			continue
		}
		if err := writeTable(b, append(append([]string{}, path...), k), sub); err != nil {
			return err
		}
	}
	return nil
}

// dottedKey renders a key path for a header.
func dottedKey(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = bottlerocket.QuoteKey(p)
	}
	return strings.Join(parts, ".")
}

// tomlValue renders a scalar or an array of scalars.
func tomlValue(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return bottlerocket.QuoteString(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case bool:
		return strconv.FormatBool(x), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return "", fmt.Errorf("cannot write %v", x)
		}
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s, nil
	case []any:
		items := make([]string, len(x))
		for i, item := range x {
			text, err := tomlValue(item)
			if err != nil {
				return "", err
			}
			items[i] = text
		}
		return "[" + strings.Join(items, ", ") + "]", nil
	}
	return "", fmt.Errorf("cannot write a %T", v)
}
