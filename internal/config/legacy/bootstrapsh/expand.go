package bootstrapsh

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxExpansion bounds the bytes variable expansion may produce over a
// whole script. Expanding literally, a few lines like X="$X$X" would
// grow without limit; a real script produces a few kilobytes.
const maxExpansion = 1 << 20

// expansionBudget is what is left of maxExpansion.
type expansionBudget struct {
	left int
	// exceeded is where the budget ran out (reported once).
	exceeded *position
}

// spend takes n bytes of expansion from the budget; once it is exhausted
// it reports one error and returns an issue for every expansion after.
func (in *interp) spend(n int, at position) *issue {
	b := in.budget
	if b.exceeded == nil && n <= b.left {
		b.left -= n
		return nil
	}
	if b.exceeded == nil {
		b.exceeded = &at
		root := in
		for root.parent != nil {
			root = root.parent
		}
		root.errorf(at, "variables expand to more than %d MiB of text by here (a variable that keeps growing, such as X=\"$X$X\"?); nodeboot stops expanding variables at that size", maxExpansion>>20)
	}
	return &issue{pos: at, msg: fmt.Sprintf("variables expanding to more than %d MiB of text (line %d)", maxExpansion>>20, in.line(*b.exceeded))}
}

// shellVar is what the interpreter knows about one variable.
type shellVar struct {
	value string
	// set is false after unset (or for a name only exported).
	set bool
	// unknown explains why the value cannot be known; "" when it is known.
	unknown string
	// origin is, for a value unknown because another variable's is,
	// that first variable and why (so that reasons never nest).
	origin   string
	exported bool
	pos      position
}

// scope holds the variables set in one shell; a subshell's scope reads
// through to its parent's and is dropped when the subshell ends.
type scope struct {
	parent *scope
	vars   map[string]shellVar
}

func newScope(parent *scope) *scope { return &scope{parent: parent, vars: map[string]shellVar{}} }

func (s *scope) lookup(name string) (shellVar, bool) {
	for c := s; c != nil; c = c.parent {
		if v, ok := c.vars[name]; ok {
			return v, true
		}
	}
	return shellVar{}, false
}

func (s *scope) set(name string, v shellVar) { s.vars[name] = v }

// visible returns every variable as the innermost scope sees it.
func (s *scope) visible() map[string]shellVar {
	out := map[string]shellVar{}
	for c := s; c != nil; c = c.parent {
		for name, v := range c.vars {
			if _, shadowed := out[name]; !shadowed {
				out[name] = v
			}
		}
	}
	return out
}

// issue is why a word cannot be expanded without running anything.
type issue struct {
	pos position
	msg string
	// variable is set when the cause is a variable without a known
	// value, and origin is where that unknown value started.
	variable, origin string
}

// assignedFrom explains a value assigned on line from a word with iss.
func assignedFrom(line int, iss *issue) (unknown, origin string) {
	if iss.variable != "" {
		return fmt.Sprintf("it is assigned on line %d from $%s, which has no value nodeboot can know either", line, iss.variable), iss.origin
	}
	return fmt.Sprintf("it is assigned on line %d from %s", line, iss.msg), ""
}

// sink receives the pieces of an expanded word.
type sink interface {
	// literal is text that is never split.
	literal(s string)
	// expansion is a substituted value, split into fields when unquoted.
	expansion(s string, quoted bool)
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

// stringBuilder joins everything: assignment values are not split.
type stringBuilder struct{ strings.Builder }

func (b *stringBuilder) literal(s string)           { b.WriteString(s) }
func (b *stringBuilder) expansion(s string, _ bool) { b.WriteString(s) }

// expandFields expands a command word into fields, as bash would for an
// argument: parameters are substituted and unquoted results split.
func (in *interp) expandFields(w *syntax.Word) ([]string, *issue) {
	var b fieldBuilder
	if iss := in.expandParts(w.Parts, false, false, &b); iss != nil {
		return nil, iss
	}
	return b.finish(), nil
}

// expandString expands an assignment value: no field splitting. A nil
// word is the empty string.
func (in *interp) expandString(w *syntax.Word) (string, *issue) {
	if w == nil {
		return "", nil
	}
	var b stringBuilder
	if iss := in.expandParts(w.Parts, false, false, &b); iss != nil {
		return "", iss
	}
	return b.String(), nil
}

// probe expands a word that must be one known field, for command names
// and wrapper options; ok is false otherwise.
func (in *interp) probe(w *syntax.Word) (string, bool) {
	fields, iss := in.expandFields(w)
	if iss != nil || len(fields) != 1 {
		return "", false
	}
	return fields[0], true
}

// expandParts expands word parts into out. quoted is set inside double
// quotes; inDefault inside the word of ${NAME:-word}, where unquoted text
// is split like a substituted value.
func (in *interp) expandParts(parts []syntax.WordPart, quoted, inDefault bool, out sink) *issue {
	for _, part := range parts {
		switch p := part.(type) {
		case *syntax.Lit:
			switch {
			case quoted:
				out.literal(unescapeQuoted(p.Value))
			case inDefault:
				splitUnescaped(p.Value, out)
			default:
				out.literal(unescape(p.Value))
			}
		case *syntax.SglQuoted:
			switch {
			case quoted: // inside "${A:-'x'}" the quotes are literal
				out.literal(in.raw(p))
			case p.Dollar:
				out.literal(ansiC(p.Value))
			default:
				out.literal(p.Value)
			}
		case *syntax.DblQuoted:
			out.literal("") // "" still makes a word
			if iss := in.expandParts(p.Parts, true, inDefault, out); iss != nil {
				return iss
			}
		case *syntax.ParamExp:
			if iss := in.expandParam(p, quoted, out); iss != nil {
				return iss
			}
		case *syntax.ExtGlob:
			out.literal(in.raw(p))
		default:
			return in.unsupported(p, describePart(p))
		}
	}
	return nil
}

// describePart names a construct nodeboot never expands.
func describePart(p syntax.WordPart) string {
	switch p := p.(type) {
	case *syntax.CmdSubst:
		if p.Backquotes {
			return "command substitution `…`"
		}
		return "command substitution $(…)"
	case *syntax.ArithmExp:
		return "arithmetic expansion $((…))"
	case *syntax.ProcSubst:
		return "process substitution"
	}
	return "expansion"
}

func (in *interp) unsupported(n syntax.Node, what string) *issue {
	return &issue{pos: posOf(n.Pos()), msg: fmt.Sprintf("%s %s is not supported: nodeboot reads the script without running anything; write the value itself", what, shellQuote(excerpt(in.raw(n))))}
}

// unescape removes the backslashes of unquoted text.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeQuoted removes the backslashes that escape $ ` " \ or a line
// break inside double quotes; others stay.
func unescapeQuoted(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '\n':
				i++
				continue
			case '$', '`', '"', '\\':
				i++
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// splitUnescaped sends unquoted text of a ${NAME:-word} default: escaped
// characters as literals, the rest as splittable text.
func splitUnescaped(s string, out sink) {
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			continue
		}
		out.expansion(s[start:i], false)
		out.literal(s[i+1 : i+2])
		i++
		start = i + 1
	}
	out.expansion(s[start:], false)
}

// expandParam evaluates $NAME, ${NAME} and the default forms
// ${NAME:-word}, ${NAME-word}, ${NAME:=word} and ${NAME=word}.
func (in *interp) expandParam(p *syntax.ParamExp, quoted bool, out sink) *issue {
	name, iss := in.paramName(p)
	if iss != nil {
		return iss
	}
	pos := posOf(p.Pos())
	v, ok := in.vars.lookup(name)
	if ok && v.unknown != "" {
		return unknownIssue(name, v, pos)
	}
	isSet := ok && v.set
	var op syntax.ParExpOperator
	if p.Exp != nil {
		op = p.Exp.Op
	}
	useDefault := false
	switch op {
	case syntax.DefaultUnsetOrNull, syntax.AssignUnsetOrNull:
		useDefault = !isSet || v.value == ""
	case syntax.DefaultUnset, syntax.AssignUnset:
		useDefault = !isSet
	default:
		if !isSet {
			return in.unsetIssue(name, pos)
		}
	}
	if !useDefault {
		if iss := in.spend(len(v.value), pos); iss != nil {
			return iss
		}
		out.expansion(v.value, quoted)
		return nil
	}
	var word []syntax.WordPart
	if p.Exp.Word != nil {
		word = p.Exp.Word.Parts
	}
	if op == syntax.DefaultUnset || op == syntax.DefaultUnsetOrNull {
		return in.expandParts(word, quoted, true, out)
	}
	var b stringBuilder
	if iss := in.expandParts(word, quoted, false, &b); iss != nil {
		return iss
	}
	def := b.String()
	if iss := in.spend(len(def), pos); iss != nil {
		return iss
	}
	in.vars.set(name, shellVar{value: def, set: true, exported: v.exported || in.allexport, pos: pos})
	out.expansion(def, quoted)
	return nil
}

// unknownIssue says that variable name, used at pos, has no known value.
func unknownIssue(name string, v shellVar, pos position) *issue {
	iss := &issue{pos: pos, msg: fmt.Sprintf("$%s has no value nodeboot can know: %s", name, v.unknown), variable: name, origin: v.origin}
	if v.origin != "" {
		iss.msg += "; it starts with " + v.origin
	} else {
		iss.origin = fmt.Sprintf("$%s: %s", name, v.unknown)
	}
	return iss
}

// paramName returns the variable a parameter expansion reads, or an issue
// when it is a form nodeboot does not evaluate.
func (in *interp) paramName(p *syntax.ParamExp) (string, *issue) {
	name := ""
	if p.Param != nil {
		name = p.Param.Value
	}
	switch {
	case !isName(name) && p.Short:
		what := "special parameter $" + name
		if name != "" && isDigit(name[0]) {
			what = "positional parameter $" + name
		}
		return "", in.unsupported(p, what)
	case p.Length && isName(name):
		return "", in.unsupported(p, "length expansion ${#…}")
	case p.Excl || p.Names != 0:
		return "", in.unsupported(p, "indirect expansion ${!…}")
	case !isName(name):
		return "", in.unsupported(p, "positional or special parameter ${"+name+"…}")
	case p.Length || p.Width || p.Index != nil || p.Slice != nil || p.Repl != nil ||
		(p.Exp != nil && !isDefaultOp(p.Exp.Op)):
		return "", in.unsupported(p, "parameter operator in ${"+name+"…}")
	}
	return name, nil
}

func isDefaultOp(op syntax.ParExpOperator) bool {
	switch op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
		return true
	}
	return false
}

// unsetIssue explains a reference to a variable the script never set.
func (in *interp) unsetIssue(name string, pos position) *issue {
	msg := fmt.Sprintf("$%s is not set by this script before it is used; nodeboot does not read the environment the script runs in (give the value, or a default with ${%s:-value})", name, name)
	if n := len(in.sourced); n > 0 {
		s := in.sourced[n-1]
		msg += fmt.Sprintf("; it may come from %q, sourced on line %d, which nodeboot does not read", clip(s.name), in.line(s.pos))
	}
	return &issue{pos: pos, msg: msg}
}
