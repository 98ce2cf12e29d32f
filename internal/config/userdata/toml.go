package userdata

import "bytes"

// isBottlerocketTOML reports whether t reads as Bottlerocket settings: its
// first line that is neither blank nor a comment is a TOML table header or
// key assignment, and some table header or key starts with "settings"
// (`[settings.kubernetes]`, `[settings]`, `settings.kubernetes.x = …`,
// `"settings".x = …`, `settings = { … }`). It only looks at line shapes, so
// broken TOML is still classified as Bottlerocket and its decoder reports
// TOML errors instead of a NodeConfig decoder reporting YAML errors.
func isBottlerocketTOML(t []byte) bool {
	first := true
	for len(t) > 0 {
		var line []byte
		line, t, _ = bytes.Cut(t, []byte{'\n'})
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		key, ok := tomlFirstKey(line)
		if first && !ok {
			return false
		}
		first = false
		if ok && key == "settings" {
			return true
		}
	}
	return false
}

// tomlFirstKey returns the first key segment of a TOML table header
// (`[a.b]`, `[[a.b]]`) or key/value line (`a.b = 1`), and false when the
// line has neither shape.
func tomlFirstKey(line []byte) (string, bool) {
	table := false
	switch {
	case bytes.HasPrefix(line, []byte("[[")):
		line, table = line[2:], true
	case bytes.HasPrefix(line, []byte("[")):
		line, table = line[1:], true
	}
	key, rest, ok := tomlKeySegment(bytes.TrimLeft(line, " \t"))
	if !ok {
		return "", false
	}
	rest = bytes.TrimLeft(rest, " \t")
	if len(rest) == 0 {
		return "", false
	}
	switch {
	case rest[0] == '.':
		return key, true
	case table && rest[0] == ']':
		return key, true
	case !table && rest[0] == '=':
		return key, true
	}
	return "", false
}

// tomlKeySegment reads one bare or quoted TOML key from the start of s.
func tomlKeySegment(s []byte) (key string, rest []byte, ok bool) {
	if len(s) == 0 {
		return "", nil, false
	}
	if q := s[0]; q == '"' || q == '\'' {
		end := bytes.IndexByte(s[1:], q)
		if end < 0 {
			return "", nil, false
		}
		return string(s[1 : end+1]), s[end+2:], true
	}
	n := 0
	for n < len(s) && isBareKeyByte(s[n]) {
		n++
	}
	if n == 0 {
		return "", nil, false
	}
	return string(s[:n]), s[n:], true
}

func isBareKeyByte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
