package redact

import "bytes"

// namedValue masks the value of {name: X, value: Y} pairs whose name X
// says Y is a secret: a kubeconfig exec plugin's env (a NodeConfig's
// identity rendered into the kubelet's kubeconfig), a container's env in
// `crictl inspect`. The name comes first, as Kubernetes writes them; it
// may be on the line before its value.
type namedValue struct {
	pending bool
	// indent is the YAML column of the name key; -1 for JSON.
	indent int
	// left counts the lines the value may still come on.
	left  int
	field string
}

// namedLookahead is how many lines after its name a value is looked for.
const namedLookahead = 3

var valueKey = []byte("value")

// isNameKey reports whether key names the other member of a pair:
// "name" (Kubernetes EnvVar, kubeconfig ExecEnvVar) or "key" (CRI
// KeyValue, in `crictl inspect`).
func isNameKey(key []byte) bool {
	return string(key) == "name" || string(key) == "key"
}

// line masks this line's values of secret-named pairs.
func (v *namedValue) line(r *redactor, line []byte, n int) []byte {
	if v.pending {
		if v.left--; v.left < 0 {
			v.pending = false
		}
	}
	if bytes.IndexByte(line, '"') >= 0 && (v.pending || bytes.Contains(line, []byte(`"name"`)) || bytes.Contains(line, []byte(`"key"`))) {
		return v.json(r, line, n)
	}
	return v.yaml(r, line, n)
}

// yaml handles "name: X" and, at the same column, "value: Y".
func (v *namedValue) yaml(r *redactor, line []byte, n int) []byte {
	kv, ok := parseYAMLKey(line)
	if !ok || kv.vs < 0 {
		return line
	}
	key, value := unquote(line[kv.ks:kv.ke]), line[kv.vs:kv.ve]
	switch {
	case isNameKey(key):
		*v = namedValue{pending: sensitiveKey(unquote(value)), indent: kv.ks, left: namedLookahead, field: string(unquote(value))}
	case v.pending && v.indent == kv.ks && bytes.Equal(key, valueKey):
		v.pending = false
		return r.maskNamed(line, n, span(kv), v.field)
	case v.pending && kv.ks < v.indent:
		v.pending = false
	}
	return line
}

// json handles "name": "X" and "value": "Y" members, on one line or on
// consecutive ones.
func (v *namedValue) json(r *redactor, line []byte, n int) []byte {
	pairs := jsonPairs(line)
	for _, p := range pairs {
		if isNameKey(unquote(line[p.ks:p.ke])) && sensitiveKey(unquote(line[p.vs:p.ve])) {
			*v = namedValue{pending: true, indent: -1, left: namedLookahead, field: string(unquote(line[p.vs:p.ve]))}
		}
	}
	if !v.pending || v.indent != -1 {
		return line
	}
	for i := len(pairs) - 1; i >= 0; i-- { // masking from the end keeps the offsets before it
		p := pairs[i]
		if bytes.Equal(unquote(line[p.ks:p.ke]), valueKey) {
			v.pending = false
			line = r.maskNamed(line, n, p, v.field)
		}
	}
	return line
}

// maskNamed masks the value of sp, recorded under field.
func (r *redactor) maskNamed(line []byte, n int, sp span, field string) []byte {
	value := line[sp.vs:sp.ve]
	if notSecretValue(value) {
		return line
	}
	r.add(RuleNamedValue, n, field)
	r.masked(RuleNamedValue, field, value)
	return splice(line, sp.vs, sp.ve, maskValue(value))
}
