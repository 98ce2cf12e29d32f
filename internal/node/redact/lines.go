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

func indentOf(line []byte) int {
	return len(line) - len(bytes.TrimLeft(line, " "))
}

// lineRules redacts one line: YAML sections, {name, value} pairs, key/value
// pairs in YAML, JSON, TOML, environment, header and flag syntax, then
// token patterns and encoded secrets.
func (s *stream) lineRules(line []byte, n int) []byte {
	if len(bytes.TrimSpace(line)) == 0 {
		return line
	}
	indent := indentOf(line)
	for len(s.open) > 0 && indent <= s.open[len(s.open)-1].indent {
		s.open = s.open[:len(s.open)-1]
	}
	if len(s.open) > 0 {
		return s.sectionLine(line, n)
	}
	line, header := s.columns(line, n)
	if header {
		return line
	}
	line = s.named.line(&s.redactor, line, n)
	line, handled := s.yamlLine(line, n)
	if !handled {
		line = s.pairs(line, n)
	}
	return s.encodedRuns(s.maskTokens(line, n), n)
}

// sectionLine masks a line nested in an open section: a block scalar line
// whole, a mapping line's value, anything else whole.
func (s *stream) sectionLine(line []byte, n int) []byte {
	sec := s.open[len(s.open)-1]
	if sec.block {
		return s.maskedLine(line, sec, n, maskWhole(line))
	}
	kv, ok := parseYAMLKey(line)
	if !ok {
		return s.maskedLine(line, sec, n, maskListItem(line))
	}
	field := sec.field + "." + string(unquote(line[kv.ks:kv.ke]))
	if kv.vs < 0 { // nested mapping
		s.open = append(s.open, section{indent: kv.ks, rule: sec.rule, field: field})
		return line
	}
	value := line[kv.vs:kv.ve]
	if isBlockIndicator(value) {
		s.open = append(s.open, section{indent: kv.ks, rule: sec.rule, field: field, block: true})
		return line
	}
	if notSecretValue(value) {
		return line
	}
	s.add(sec.rule, n, field)
	s.masked(sec.rule, field, value)
	return splice(line, kv.vs, kv.ve, maskValue(value))
}

// maskedLine records a finding when masking changed a section's line.
func (s *stream) maskedLine(line []byte, sec section, n int, out []byte) []byte {
	if bytes.Equal(out, line) {
		return line
	}
	s.add(sec.rule, n, sec.field)
	s.masked(sec.rule, sec.field, bytes.TrimLeft(line, " \t-"))
	return out
}

// splice replaces line[s:e] with repl.
func splice(line []byte, s, e int, repl []byte) []byte {
	out := make([]byte, 0, len(line)-(e-s)+len(repl))
	return append(append(append(out, line[:s]...), repl...), line[e:]...)
}

// yamlLine handles a YAML mapping line outside any section: identity and
// keys naming a secret open a section or have their value masked.
func (s *stream) yamlLine(line []byte, n int) ([]byte, bool) {
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
		s.open = append(s.open, section{indent: kv.ks, rule: rule, field: string(key)})
		return line, true
	}
	value := line[kv.vs:kv.ve]
	if isBlockIndicator(value) {
		s.open = append(s.open, section{indent: kv.ks, rule: rule, field: string(key), block: true})
		return line, true
	}
	if notSecretValue(value) {
		return line, true
	}
	s.add(rule, n, string(key))
	s.masked(rule, string(key), value)
	return splice(line, kv.vs, kv.ve, maskValue(value)), true
}

// pairs masks the values of secret-named keys in JSON members,
// assignments (environment, TOML, query strings, --flag=value), headers
// and flow mappings (key: value anywhere), --flag value,
// `aws configure set key value`, XML elements (<SecretAccessKey>, in SDK
// debug logs of STS answers), .netrc lines and table rows (`aws --output
// table`); and the password of "-u user:password" flags.
func (r *redactor) pairs(line []byte, n int) []byte {
	if bytes.IndexByte(line, '"') >= 0 && bytes.IndexByte(line, ':') >= 0 {
		line = r.maskPairs(line, n, jsonPairs(line))
	}
	if bytes.IndexByte(line, '=') >= 0 {
		line = r.maskPairs(line, n, assignments(line))
	}
	if bytes.IndexByte(line, ':') >= 0 {
		line = r.maskPairs(line, n, colonPairs(line))
	}
	if bytes.Contains(line, []byte("--")) {
		line = r.maskPairs(line, n, spacedFlags(line))
	}
	if bytes.Contains(line, []byte(configureSet)) {
		line = r.maskPairs(line, n, configureSetPairs(line))
	}
	if bytes.Contains(line, []byte("</")) {
		line = r.maskPairs(line, n, xmlElements(line))
	}
	if isNetrc(line) {
		line = r.maskPairs(line, n, netrcPairs(line))
	}
	if isTableRow(line) {
		line = r.maskPairs(line, n, tableCells(line))
	}
	if hasUserPasswordFlag(line) {
		line = r.maskPairsIf(line, n, userPasswordFlags(line), func([]byte) bool { return true })
	}
	return line
}

// maskPairs masks the value of every span whose key names a secret.
func (r *redactor) maskPairs(line []byte, n int, spans []span) []byte {
	return r.maskPairsIf(line, n, spans, sensitiveKey)
}

// maskPairsIf masks the value of every span whose key secretKey accepts.
func (r *redactor) maskPairsIf(line []byte, n int, spans []span, secretKey func([]byte) bool) []byte {
	var out []byte
	done := 0
	for _, sp := range spans {
		key, value := line[sp.ks:sp.ke], line[sp.vs:sp.ve]
		if sp.vs < done || !secretKey(key) || notSecretValue(value) {
			continue
		}
		field := string(bytes.TrimLeft(unquote(key), "-"))
		out = append(out, line[done:sp.vs]...)
		out = append(out, maskValue(value)...)
		done = sp.ve
		r.add(RuleSensitiveKey, n, field)
		r.masked(RuleSensitiveKey, field, value)
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
	return append(bytes.Clone(line[:len(line)-len(rest)]), Mask...)
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
