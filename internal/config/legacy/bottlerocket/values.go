package bottlerocket

import (
	"fmt"
	"math"
	"strconv"
)

// describe names a TOML value for "expected X, got Y" messages.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("a string (%q)", clip(x))
	case int64:
		return fmt.Sprintf("an integer (%d)", x)
	case float64:
		return fmt.Sprintf("a float (%s)", strconv.FormatFloat(x, 'g', -1, 64))
	case bool:
		return fmt.Sprintf("a boolean (%t)", x)
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	default:
		return fmt.Sprintf("a date or time (%v)", x)
	}
}

// clip shortens long values quoted in messages.
func clip(s string) string {
	const limit = 40
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "…"
}

// table expects a TOML table.
func (d *decoder) table(p keyPath, v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		d.errorf(p, "expected a table, got %s", d.describe(p, v))
	}
	return m, ok
}

// str expects a string.
func (d *decoder) str(p keyPath, v any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		d.errorf(p, "expected a string, got %s%s", d.describe(p, v), quoteHint(v))
	}
	return s, ok
}

// quoteHint suggests quoting a number or boolean given where a string is due.
func quoteHint(v any) string {
	switch v.(type) {
	case int64, float64, bool:
		return "; put the value in double quotes"
	}
	return ""
}

// boolean expects true or false.
func (d *decoder) boolean(p keyPath, v any) (bool, bool) {
	b, ok := v.(bool)
	if !ok {
		hint := ""
		if s, isString := v.(string); isString && (s == "true" || s == "false") {
			hint = "; remove the quotes"
		}
		d.errorf(p, "expected true or false, got %s%s", d.describe(p, v), hint)
	}
	return b, ok
}

// integer expects an integer in [lo, hi].
func (d *decoder) integer(p keyPath, v any, lo, hi int64) (int64, bool) {
	n, ok := v.(int64)
	if !ok {
		hint := ""
		if s, isString := v.(string); isString {
			if _, err := strconv.ParseInt(s, 10, 64); err == nil {
				hint = "; remove the quotes"
			}
		}
		d.errorf(p, "expected an integer, got %s%s", d.describe(p, v), hint)
		return 0, false
	}
	return n, d.inRange(p, n, lo, hi)
}

// inRange reports n outside [lo, hi].
func (d *decoder) inRange(p keyPath, n, lo, hi int64) bool {
	if n < lo || n > hi {
		switch {
		case hi == math.MaxInt32 && lo == 0:
			d.errorf(p, "%d is out of range: must be 0 or more and at most %d", n, hi)
		default:
			d.errorf(p, "%d is out of range: must be between %d and %d", n, lo, hi)
		}
		return false
	}
	return true
}

// stringList expects an array of strings.
func (d *decoder) stringList(p keyPath, v any) ([]string, bool) {
	items, ok := v.([]any)
	if !ok {
		d.errorf(p, "expected an array of strings such as [\"a\", \"b\"], got %s", d.describe(p, v))
		return nil, false
	}
	out := make([]string, 0, len(items))
	good := true
	for i, item := range items {
		s, ok := item.(string)
		if !ok {
			d.itemErrorf(p, i, "expected a string, got %s", d.describe(p, item))
			good = false
			continue
		}
		out = append(out, s)
	}
	return out, good
}

// itemErrorf reports an error about item i of the array at p, placed on
// the item's line when known.
func (d *decoder) itemErrorf(p keyPath, i int, format string, args ...any) {
	d.problems.Errorf(d.src, fmt.Sprintf("%s[%d]", p, i), d.at(p.child(strconv.Itoa(i))), format, args...)
}

// describe is describe(v), without the value when the setting at p may
// hold a secret (hidesValue).
func (d *decoder) describe(p keyPath, v any) string {
	if !hidesValue(p) {
		return describe(v)
	}
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	}
	return describe(v) // arrays and tables are named without their content
}
