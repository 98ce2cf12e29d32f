package bottlerocket

import "strings"

// The syntax rules Bottlerocket applies to settings, as plain functions:
// compiling their regular expressions (bounded repetitions expand into large
// programs) cost more than all the rest of the agent's package
// initialisation, on every boot, whether or not the user data was TOML.
// syntax_test.go proves each equal to the regular expression it replaces.

// isClusterName is Bottlerocket's (and EKS's) cluster name rule: 1 to 100
// letters, digits, - and _, starting with a letter or digit.
func isClusterName(s string) bool {
	if len(s) == 0 || len(s) > 100 || !isAlnum(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// isHostname reports whether s is dot-separated labels of 1 to 63
// letters, digits and -, each starting and ending with a letter or digit.
// The 253-character limit is the callers'.
func isHostname(s string) bool {
	for label := range strings.SplitSeq(s, ".") {
		if !isHostLabel(label) {
			return false
		}
	}
	return true
}

func isHostLabel(l string) bool {
	if len(l) == 0 || len(l) > 63 || !isAlnum(l[0]) || !isAlnum(l[len(l)-1]) {
		return false
	}
	for i := range len(l) {
		if c := l[i]; !isAlnum(c) && c != '-' {
			return false
		}
	}
	return true
}

// splitTaint splits Bottlerocket's "[value]:Effect": the value empty or 1 to
// 63 letters, digits, '.', '_' and '-' starting and ending with a letter or
// digit; the effect 1 to 253 letters and digits. ok is false otherwise.
func splitTaint(s string) (value, effect string, ok bool) {
	value, effect, found := strings.Cut(s, ":")
	if !found || !isTaintValue(value) || len(effect) == 0 || len(effect) > 253 || !allBytes(effect, isAlnum) {
		return "", "", false
	}
	return value, effect, true
}

func isTaintValue(v string) bool {
	if v == "" {
		return true
	}
	if len(v) > 63 || !isAlnum(v[0]) || !isAlnum(v[len(v)-1]) {
		return false
	}
	return allBytes(v, func(c byte) bool { return isAlnum(c) || c == '.' || c == '_' || c == '-' })
}

// durationUnits are the units of a Bottlerocket duration, in the order they
// must appear.
var durationUnits = [...]string{"h", "m", "s", "ms"}

// isDuration reports whether s is Bottlerocket's duration syntax: hours,
// minutes, seconds and milliseconds, in that order, each optional, each a
// decimal number (digits, optionally a point and more digits) and its unit.
// The empty string matches; callers reject it.
func isDuration(s string) bool {
	next := 0 // index of the first unit still allowed
	for s != "" {
		n := decimalLen(s)
		if n == 0 {
			return false
		}
		s = s[n:]
		unit := -1
		switch {
		case strings.HasPrefix(s, "ms"):
			unit = 3
		case strings.HasPrefix(s, "h"):
			unit = 0
		case strings.HasPrefix(s, "m"):
			unit = 1
		case strings.HasPrefix(s, "s"):
			unit = 2
		}
		if unit < next {
			return false
		}
		s, next = s[len(durationUnits[unit]):], unit+1
	}
	return true
}

// decimalLen is the length of the number s starts with (digits, optionally
// followed by a point and digits), 0 if none.
func decimalLen(s string) int {
	n := digitsLen(s)
	if n > 0 && n < len(s) && s[n] == '.' {
		if frac := digitsLen(s[n+1:]); frac > 0 {
			n += 1 + frac
		}
	}
	return n
}

func digitsLen(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

// isCPUList reports whether s is a Linux cpuset list such as "0-1,4".
func isCPUList(s string) bool {
	for item := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(item, "-")
		if !isNumber(lo) || isRange && !isNumber(hi) {
			return false
		}
	}
	return true
}

func isNumber(s string) bool { return s != "" && allBytes(s, isDigit) }

func allBytes(s string, ok func(byte) bool) bool {
	for i := range len(s) {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isAlnum(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
