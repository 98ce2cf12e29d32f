package bootstrapsh

import (
	"fmt"
	"strings"
)

// shellVar is what the interpreter knows about one variable.
type shellVar struct {
	value string
	// set is false after unset (or for a name only exported).
	set bool
	// unknown explains why the value cannot be known; "" when it is known.
	unknown  string
	exported bool
	pos      position
}

// issue is why a word cannot be expanded without running anything.
type issue struct {
	pos position
	msg string
}

// fieldBuilder applies bash's field splitting: unquoted expansions are
// split on blanks, quoted ones and literals never are, and an unquoted
// expansion that is empty produces no field at all.
type fieldBuilder struct {
	fields  []string
	cur     strings.Builder
	started bool
}

func (b *fieldBuilder) literal(s string) {
	b.cur.WriteString(s)
	b.started = true
}

func (b *fieldBuilder) expansion(s string, quoted bool) {
	if quoted {
		b.literal(s)
		return
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == ' ' || c == '\t' || c == '\n' {
			if b.started {
				b.emit()
			}
			continue
		}
		b.cur.WriteByte(s[i])
		b.started = true
	}
}

func (b *fieldBuilder) emit() {
	b.fields = append(b.fields, b.cur.String())
	b.cur.Reset()
	b.started = false
}

func (b *fieldBuilder) finish() []string {
	if b.started {
		b.emit()
	}
	return b.fields
}

// expandFields expands a command word into fields, as bash would for an
// argument: parameters are substituted and unquoted results split.
func (in *interp) expandFields(w word) ([]string, *issue) {
	var b fieldBuilder
	for _, p := range w.parts {
		switch p.kind {
		case partLiteral:
			b.literal(p.text)
		case partUnsupported:
			return nil, unsupportedIssue(p)
		case partParam:
			v, iss := in.paramValue(p)
			if iss != nil {
				return nil, iss
			}
			b.expansion(v, p.quoted)
		}
	}
	return b.finish(), nil
}

// expandString expands an assignment value: no field splitting.
func (in *interp) expandString(parts []part) (string, *issue) {
	var b strings.Builder
	for _, p := range parts {
		switch p.kind {
		case partLiteral:
			b.WriteString(p.text)
		case partUnsupported:
			return "", unsupportedIssue(p)
		case partParam:
			v, iss := in.paramValue(p)
			if iss != nil {
				return "", iss
			}
			b.WriteString(v)
		}
	}
	return b.String(), nil
}

// probe expands a word that must be one known field, for command names
// and wrapper options; ok is false otherwise.
func (in *interp) probe(w word) (string, bool) {
	fields, iss := in.expandFields(w)
	if iss != nil || len(fields) != 1 {
		return "", false
	}
	return fields[0], true
}

func unsupportedIssue(p part) *issue {
	return &issue{pos: p.pos, msg: fmt.Sprintf("%s %s is not supported: nodeboot reads the script without running anything; write the value itself", p.what, shellQuote(excerpt(p.text)))}
}

// paramValue evaluates $NAME, ${NAME} and the default forms.
func (in *interp) paramValue(p part) (string, *issue) {
	v, ok := in.vars[p.text]
	if ok && v.unknown != "" {
		return "", &issue{pos: p.pos, msg: fmt.Sprintf("$%s has no value nodeboot can know: %s", p.text, v.unknown)}
	}
	isSet := ok && v.set
	useDefault := false
	switch p.op {
	case "":
		if !isSet {
			return "", in.unsetIssue(p)
		}
	case ":-", ":=":
		useDefault = !isSet || v.value == ""
	case "-", "=":
		useDefault = !isSet
	}
	if !useDefault {
		return v.value, nil
	}
	def, iss := in.expandString(p.arg)
	if iss != nil {
		return "", iss
	}
	if p.op == ":=" || p.op == "=" {
		in.vars[p.text] = shellVar{value: def, set: true, exported: v.exported || in.allexport, pos: p.pos}
	}
	return def, nil
}

// unsetIssue explains a reference to a variable the script never set.
func (in *interp) unsetIssue(p part) *issue {
	msg := fmt.Sprintf("$%s is not set by this script before it is used; nodeboot does not read the environment the script runs in (give the value, or a default with ${%s:-value})", p.text, p.text)
	if n := len(in.sourced); n > 0 {
		s := in.sourced[n-1]
		msg += fmt.Sprintf("; it may come from %q, sourced on line %d, which nodeboot does not read", s.name, in.line(s.pos))
	}
	return &issue{pos: p.pos, msg: msg}
}
