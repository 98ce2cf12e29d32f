package redact

import (
	"bytes"
)

// section is a YAML mapping whose nested lines are all masked: the value
// of identity, of a key that names a secret, or a block scalar ("|", ">")
// of either.
type section struct {
	indent int // the key's column; deeper lines belong to the section
	rule   Rule
	field  string
	// block is true for a block scalar: its lines are masked whole.
	block bool
}

// lines masks line by line: YAML sections, key/value pairs in YAML, JSON,
// TOML, environment and flag syntax, then token patterns and encoded
// secrets. Lines of a multi-line base64 block that decodes to a secret are
// masked whole.
func (r *redactor) lines(data []byte) []byte {
	lines := bytes.SplitAfter(data, []byte{'\n'})
	encoded := r.encodedBlocks(lines)
	var out bytes.Buffer
	out.Grow(len(data))
	var open []section // nested sections, outermost first
	for i, raw := range lines {
		body, eol := splitEOL(raw)
		n := i + 1
		switch {
		case encoded[i]:
			body = maskWhole(body)
		default:
			body = r.line(&open, body, n)
		}
		out.Write(body)
		out.Write(eol)
	}
	return out.Bytes()
}

func splitEOL(raw []byte) (body, eol []byte) {
	body = bytes.TrimSuffix(raw, []byte{'\n'})
	body = bytes.TrimSuffix(body, []byte{'\r'})
	return body, raw[len(body):]
}

// maskWhole masks a line's text, keeping its indentation.
func maskWhole(line []byte) []byte {
	trimmed := bytes.TrimLeft(line, " \t")
	if len(trimmed) == 0 || isMask(trimmed) {
		return line
	}
	return append(append([]byte{}, line[:len(line)-len(trimmed)]...), Mask...)
}

func indentOf(line []byte) int {
	return len(line) - len(bytes.TrimLeft(line, " "))
}

// line redacts one line; open carries the YAML sections across lines.
func (r *redactor) line(open *[]section, line []byte, n int) []byte {
	if len(bytes.TrimSpace(line)) == 0 {
		return line
	}
	indent := indentOf(line)
	for len(*open) > 0 && indent <= (*open)[len(*open)-1].indent {
		*open = (*open)[:len(*open)-1]
	}
	if len(*open) > 0 {
		return r.sectionLine(open, line, n)
	}
	line, handled := r.yamlLine(open, line, n)
	if !handled {
		line = r.pairs(line, n)
	}
	return r.encodedRuns(r.maskTokens(line, n), n)
}

// sectionLine masks a line nested in an open section: a block scalar line
// whole, a mapping line's value, anything else whole.
func (r *redactor) sectionLine(open *[]section, line []byte, n int) []byte {
	sec := (*open)[len(*open)-1]
	if sec.block {
		if out := maskWhole(line); !bytes.Equal(out, line) {
			r.add(sec.rule, n, sec.field)
			return out
		}
		return line
	}
	kv, ok := parseYAMLKey(line)
	if !ok {
		if out := maskListItem(line); !bytes.Equal(out, line) {
			r.add(sec.rule, n, sec.field)
			return out
		}
		return line
	}
	field := sec.field + "." + string(unquote(line[kv.ks:kv.ke]))
	if kv.vs < 0 { // nested mapping
		*open = append(*open, section{indent: kv.ks, rule: sec.rule, field: field})
		return line
	}
	value := line[kv.vs:kv.ve]
	if isBlockIndicator(value) {
		*open = append(*open, section{indent: kv.ks, rule: sec.rule, field: field, block: true})
		return line
	}
	if notSecretValue(value) {
		return line
	}
	r.add(sec.rule, n, field)
	return splice(line, kv.vs, kv.ve, maskValue(value))
}

// splice replaces line[s:e] with repl.
func splice(line []byte, s, e int, repl []byte) []byte {
	out := make([]byte, 0, len(line)-(e-s)+len(repl))
	return append(append(append(out, line[:s]...), repl...), line[e:]...)
}

// yamlLine handles a YAML mapping line outside any section: identity and
// keys naming a secret open a section or have their value masked.
func (r *redactor) yamlLine(open *[]section, line []byte, n int) ([]byte, bool) {
	kv, ok := parseYAMLKey(line)
	if !ok || line[kv.ks] == '"' { // a JSON member is left to pairs
		return line, false
	}
	key := unquote(line[kv.ks:kv.ke])
	rule := RuleSensitiveKey
	switch {
	case string(key) == identityKey:
		rule = RuleIdentity
	case !sensitiveKey(key):
		return line, false
	}
	if kv.vs < 0 {
		*open = append(*open, section{indent: kv.ks, rule: rule, field: string(key)})
		return line, true
	}
	value := line[kv.vs:kv.ve]
	if isBlockIndicator(value) {
		*open = append(*open, section{indent: kv.ks, rule: rule, field: string(key), block: true})
		return line, true
	}
	if notSecretValue(value) {
		return line, true
	}
	r.add(rule, n, string(key))
	return splice(line, kv.vs, kv.ve, maskValue(value)), true
}

// pairs masks the values of secret-named keys in JSON members,
// assignments (environment, TOML, query strings, --flag=value) and
// --flag value.
func (r *redactor) pairs(line []byte, n int) []byte {
	if bytes.IndexByte(line, '"') >= 0 && bytes.IndexByte(line, ':') >= 0 {
		line = r.maskPairs(line, n, jsonPairs(line))
	}
	if bytes.IndexByte(line, '=') >= 0 {
		line = r.maskPairs(line, n, assignments(line))
	}
	if bytes.Contains(line, []byte("--")) {
		line = r.maskPairs(line, n, spacedFlags(line))
	}
	return line
}

// maskPairs masks the value of every span whose key names a secret.
func (r *redactor) maskPairs(line []byte, n int, spans []span) []byte {
	var out []byte
	done := 0
	for _, sp := range spans {
		key, value := line[sp.ks:sp.ke], line[sp.vs:sp.ve]
		if sp.vs < done || !sensitiveKey(key) || notSecretValue(value) {
			continue
		}
		out = append(out, line[done:sp.vs]...)
		out = append(out, maskValue(value)...)
		done = sp.ve
		r.add(RuleSensitiveKey, n, string(bytes.TrimLeft(unquote(key), "-")))
	}
	if out == nil {
		return line
	}
	return append(out, line[done:]...)
}

// maskValue masks a value, keeping its quotes.
func maskValue(v []byte) []byte {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return []byte(string(v[0]) + Mask + string(v[0]))
	}
	return []byte(Mask)
}

// maskListItem masks "- item" or a plain line inside a section.
func maskListItem(line []byte) []byte {
	rest := bytes.TrimLeft(line, " \t")
	for bytes.HasPrefix(rest, []byte("- ")) {
		rest = bytes.TrimLeft(rest[2:], " ")
	}
	if notSecretValue(rest) {
		return line
	}
	return append(append([]byte{}, line[:len(line)-len(rest)]...), Mask...)
}

func isBlockIndicator(v []byte) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && (v[0] == '|' || v[0] == '>') && len(v) <= 3
}

func unquote(b []byte) []byte {
	if len(b) >= 2 && (b[0] == '"' || b[0] == '\'') && b[len(b)-1] == b[0] {
		return b[1 : len(b)-1]
	}
	return b
}
