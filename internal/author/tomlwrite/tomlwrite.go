// Package tomlwrite writes TOML documents in a fixed key order, in the two
// spellings Bottlerocket user data comes in: [table] headers with their
// keys (Write), and one dotted key per line (WriteDotted, the form EKS
// managed node groups write). Output is deterministic: keys come in the
// order they were set, and maps become tables with sorted keys.
package tomlwrite

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/nodeboot/nodeboot/internal/config/tomlsyntax"
)

// Table is a TOML table built in a fixed key order. Values are strings,
// int64, float64, bool, []any of those, or *Table.
type Table struct {
	keys   []string
	values map[string]any
}

// NewTable returns an empty table.
func NewTable() *Table { return &Table{values: map[string]any{}} }

// Set adds or replaces key, keeping its first place; map[string]any values
// (nested any deep) become sub-tables with sorted keys, and int values
// int64.
func (t *Table) Set(key string, v any) {
	switch x := v.(type) {
	case map[string]any:
		sub := NewTable()
		for _, k := range slices.Sorted(maps.Keys(x)) {
			sub.Set(k, x[k])
		}
		v = sub
	case int:
		v = int64(x)
	}
	if _, exists := t.values[key]; !exists {
		t.keys = append(t.keys, key)
	}
	t.values[key] = v
}

// Table returns the sub-table at key, creating it.
func (t *Table) Table(key string) *Table {
	if sub, ok := t.values[key].(*Table); ok {
		return sub
	}
	sub := NewTable()
	t.Set(key, sub)
	return sub
}

// Get returns the value at key.
func (t *Table) Get(key string) (any, bool) {
	v, ok := t.values[key]
	return v, ok
}

// Has reports whether key is set.
func (t *Table) Has(key string) bool {
	_, ok := t.values[key]
	return ok
}

// Delete removes key.
func (t *Table) Delete(key string) {
	if _, ok := t.values[key]; !ok {
		return
	}
	delete(t.values, key)
	for i, k := range t.keys {
		if k == key {
			t.keys = append(t.keys[:i:i], t.keys[i+1:]...)
			break
		}
	}
}

// Keys returns the keys in order.
func (t *Table) Keys() []string { return append([]string(nil), t.keys...) }

// Empty reports a table without keys.
func (t *Table) Empty() bool { return len(t.keys) == 0 }

// Write renders t: each table's plain keys under its [header], then its
// sub-tables. Tables without plain keys get no header of their own; empty
// tables are left out. Strings are basic ("…") strings.
func Write(t *Table) (string, error) {
	var b strings.Builder
	if err := writeTable(&b, nil, t); err != nil {
		return "", err
	}
	return strings.TrimPrefix(b.String(), "\n"), nil
}

func writeTable(b *strings.Builder, path []string, t *Table) error {
	var subs []string
	wroteHeader := false
	for _, k := range t.keys {
		v := t.values[k]
		if _, isTable := v.(*Table); isTable {
			subs = append(subs, k)
			continue
		}
		if !wroteHeader && len(path) > 0 {
			b.WriteString("\n[" + DottedKey(path) + "]\n")
			wroteHeader = true
		}
		text, err := Value(v, false)
		if err != nil {
			return fmt.Errorf("%s: %w", DottedKey(append(path, k)), err)
		}
		b.WriteString(tomlsyntax.QuoteKey(k) + " = " + text + "\n")
	}
	for _, k := range subs {
		sub := t.values[k].(*Table)
		if sub.Empty() {
			continue
		}
		if err := writeTable(b, append(append([]string{}, path...), k), sub); err != nil {
			return err
		}
	}
	return nil
}

// WriteDotted renders every leaf value of t as one dotted key per line,
// in order (settings.kubernetes.node-labels."a/b" = …). With literal,
// strings and quoted keys are written as literal ('…') strings where TOML
// allows it.
func WriteDotted(t *Table, literal bool) (string, error) {
	var b strings.Builder
	if err := writeDotted(&b, nil, t, literal); err != nil {
		return "", err
	}
	return b.String(), nil
}

func writeDotted(b *strings.Builder, path []string, t *Table, literal bool) error {
	for _, k := range t.keys {
		p := append(append([]string{}, path...), k)
		if sub, ok := t.values[k].(*Table); ok {
			if err := writeDotted(b, p, sub, literal); err != nil {
				return err
			}
			continue
		}
		text, err := Value(t.values[k], literal)
		if err != nil {
			return fmt.Errorf("%s: %w", DottedKey(p), err)
		}
		b.WriteString(dottedKey(p, literal) + " = " + text + "\n")
	}
	return nil
}

// DottedKey renders a key path, quoting the segments that are not bare keys.
func DottedKey(path []string) string { return dottedKey(path, false) }

// dottedKey quotes segments that are not bare keys, with literal quotes
// ('…') where they fit when literal is set.
func dottedKey(path []string, literal bool) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = tomlsyntax.QuoteKey(p)
		if literal && parts[i] != p && isLiteralSafe(p) {
			parts[i] = "'" + p + "'"
		}
	}
	return strings.Join(parts, ".")
}

// Value renders a scalar or an array of scalars (dates and times as
// go-toml decodes them included). With literal, a string without ' or
// control characters is written as a literal string.
func Value(v any, literal bool) (string, error) {
	switch x := v.(type) {
	case string:
		if literal && isLiteralSafe(x) {
			return "'" + x + "'", nil
		}
		return tomlsyntax.QuoteString(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case int:
		return strconv.Itoa(x), nil
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
	case time.Time:
		return x.Format(time.RFC3339Nano), nil
	case toml.LocalDate, toml.LocalTime, toml.LocalDateTime:
		return fmt.Sprint(x), nil
	case []any:
		items := make([]string, len(x))
		for i, item := range x {
			text, err := Value(item, literal)
			if err != nil {
				return "", err
			}
			items[i] = text
		}
		return "[" + strings.Join(items, ", ") + "]", nil
	}
	return "", fmt.Errorf("cannot write a %T", v)
}

// isLiteralSafe reports whether s fits in a TOML literal string.
func isLiteralSafe(s string) bool {
	for _, r := range s {
		if r == '\'' || r < 0x20 && r != '\t' || r == 0x7f {
			return false
		}
	}
	return true
}
