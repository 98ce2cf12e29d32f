package redact

import "bytes"

// Hand-written scanners for the patterns tried on every line: they are
// linear and allocation-free, where regular expressions cost several times
// more on large logs.

func isKeyChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' }

// yamlKV locates the key and value of a YAML mapping line
// ("  - key: value", "key:", "'quoted key': v"). vs is -1 without a value.
type yamlKV struct {
	ks, ke, vs, ve int
}

// parseYAMLKey parses line as a YAML mapping line.
func parseYAMLKey(line []byte) (yamlKV, bool) {
	i := 0
	for {
		for i < len(line) && isSpaceByte(line[i]) {
			i++
		}
		if i+1 < len(line) && line[i] == '-' && isSpaceByte(line[i+1]) {
			i += 2
			continue
		}
		break
	}
	kv := yamlKV{ks: i, vs: -1}
	switch {
	case i < len(line) && (line[i] == '"' || line[i] == '\''):
		end := bytes.IndexByte(line[i+1:], line[i])
		if end < 0 {
			return kv, false
		}
		kv.ke = i + 1 + end + 1
	default:
		j := i
		for j < len(line) && (isKeyChar(line[j]) || line[j] == '/') {
			j++
		}
		kv.ke = j
	}
	if kv.ke == kv.ks {
		return kv, false
	}
	j := kv.ke
	for j < len(line) && isSpaceByte(line[j]) {
		j++
	}
	if j >= len(line) || line[j] != ':' {
		return kv, false
	}
	j++
	rest := bytes.TrimRight(line[j:], " \t")
	if len(rest) == 0 {
		return kv, true
	}
	if !isSpaceByte(rest[0]) {
		return kv, false // "key:value", "https://"
	}
	k := j
	for k < len(line) && isSpaceByte(line[k]) {
		k++
	}
	kv.vs, kv.ve = k, j+len(rest)
	return kv, true
}

// span is a key and its value inside a line.
type span struct{ ks, ke, vs, ve int }

// assignments finds key=value pairs: environment and TOML assignments,
// query parameters, --flag=value, klog's key="value". Every '=' is tried,
// so KEY=value inside a quoted value is found too.
func assignments(line []byte) []span {
	var out []span
	for i := bytes.IndexByte(line, '='); i >= 0; {
		ke := i
		for ke > 0 && isSpaceByte(line[ke-1]) {
			ke--
		}
		ks := ke
		for ks > 0 && isKeyChar(line[ks-1]) {
			ks--
		}
		vs := i + 1
		for vs < len(line) && isSpaceByte(line[vs]) {
			vs++
		}
		ve := valueEnd(line, vs)
		if ks < ke && vs < ve {
			out = append(out, span{ks, ke, vs, ve})
		}
		next := bytes.IndexByte(line[i+1:], '=')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return out
}

// valueEnd returns where a value starting at vs ends: the closing quote of
// a quoted value, else the first separator.
func valueEnd(line []byte, vs int) int {
	if vs >= len(line) {
		return vs
	}
	if q := line[vs]; q == '"' || q == '\'' {
		for j := vs + 1; j < len(line); j++ {
			if line[j] == '\\' && q == '"' {
				j++
				continue
			}
			if line[j] == q {
				return j + 1
			}
		}
		return vs // unterminated: not a value
	}
	j := vs
	for j < len(line) {
		switch line[j] {
		case ' ', '\t', '"', '\'', ',', ';', '&', '}', ']', '=':
			return j
		}
		j++
	}
	return j
}

// jsonPairs finds "key": "value" members.
func jsonPairs(line []byte) []span {
	var out []span
	for i := 0; i < len(line); {
		c := bytes.IndexByte(line[i:], ':')
		if c < 0 {
			break
		}
		c += i
		i = c + 1
		ke := c
		for ke > 0 && isSpaceByte(line[ke-1]) {
			ke--
		}
		if ke == 0 || line[ke-1] != '"' {
			continue
		}
		ks := ke - 1
		for ks > 0 && (line[ks-1] != '"' || ks >= 2 && line[ks-2] == '\\') {
			ks--
		}
		if ks == 0 {
			continue
		}
		vs := c + 1
		for vs < len(line) && isSpaceByte(line[vs]) {
			vs++
		}
		if vs >= len(line) || line[vs] != '"' {
			continue
		}
		ve, closed := stringEnd(line, vs)
		if !closed {
			continue
		}
		out = append(out, span{ks - 1, ke, vs, ve})
		i = ve
	}
	return out
}

// spacedFlags finds "--flag value" (the value not itself a flag).
func spacedFlags(line []byte) []span {
	var out []span
	for i := 0; i+2 < len(line); i++ {
		if line[i] != '-' || line[i+1] != '-' || i > 0 && !isSpaceByte(line[i-1]) {
			continue
		}
		ke := i + 2
		for ke < len(line) && (isKeyChar(line[ke]) && line[ke] != '.') {
			ke++
		}
		if ke == i+2 || ke >= len(line) || !isSpaceByte(line[ke]) {
			continue
		}
		vs := ke
		for vs < len(line) && isSpaceByte(line[vs]) {
			vs++
		}
		if vs >= len(line) || line[vs] == '-' {
			continue
		}
		ve := valueEnd(line, vs)
		if q := line[vs]; q != '"' && q != '\'' {
			for ve < len(line) && !isSpaceByte(line[ve]) {
				ve++
			}
		}
		if ve > vs {
			out = append(out, span{i, ke, vs, ve})
			i = ve - 1
		}
	}
	return out
}

// bootstrapTokens finds <6 of [a-z0-9]>.<16 of [a-z0-9]> standing alone.
func bootstrapTokens(line []byte) [][2]int {
	var out [][2]int
	for i := bytes.IndexByte(line, '.'); i >= 0; {
		s, e := i-6, i+17
		if s >= 0 && e <= len(line) && lowerAlnum(line[s:i]) && lowerAlnum(line[i+1:e]) &&
			(s == 0 || !isTokenNeighbour(line[s-1])) && (e == len(line) || !isTokenNeighbour(line[e])) {
			out = append(out, [2]int{s, e})
		}
		next := bytes.IndexByte(line[i+1:], '.')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return out
}

func lowerAlnum(b []byte) bool {
	for _, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func isTokenNeighbour(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// awsKeyPrefixes start AWS access key IDs (and other unique IDs of the
// same shape, which are as identifying).
var awsKeyPrefixes = [...]string{"AKIA", "ASIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA", "ABIA", "ACCA"}

// awsAccessKeyIDs finds 20-character AWS access key IDs standing alone.
func awsAccessKeyIDs(line []byte) [][2]int {
	var out [][2]int
	for i := 0; i+20 <= len(line); i++ {
		if line[i] != 'A' || i > 0 && isAlnum(line[i-1]) {
			continue
		}
		if !hasAWSKeyPrefix(line[i:i+4]) || !upperAlnum(line[i+4:i+20]) || i+20 < len(line) && isAlnum(line[i+20]) {
			continue
		}
		out = append(out, [2]int{i, i + 20})
		i += 19
	}
	return out
}

func hasAWSKeyPrefix(b []byte) bool {
	for _, p := range awsKeyPrefixes {
		if string(b) == p {
			return true
		}
	}
	return false
}

func upperAlnum(b []byte) bool {
	for _, c := range b {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}

// indexFold is a case-insensitive bytes.Index for an ASCII lower-case word.
func indexFold(b []byte, word string) int {
	for i := 0; i+len(word) <= len(b); i++ {
		j := 0
		for j < len(word) && b[i+j]|0x20 == word[j] {
			j++
		}
		if j == len(word) {
			return i
		}
	}
	return -1
}

// maskSpans masks the given [start, end) ranges (sorted, disjoint) of line.
func maskSpans(line []byte, spans [][2]int) []byte {
	if len(spans) == 0 {
		return line
	}
	var out []byte
	done := 0
	for _, s := range spans {
		if s[0] < done {
			continue
		}
		out = append(out, line[done:s[0]]...)
		out = append(out, Mask...)
		done = s[1]
	}
	return append(out, line[done:]...)
}
