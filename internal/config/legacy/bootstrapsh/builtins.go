package bootstrapsh

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// builtin applies the builtins that change variables: export, readonly,
// declare, typeset, local, unset, set -a, source, read and friends.
// Every other command is left alone.
func (in *interp) builtin(res resolution, ctx execContext, pos position) {
	switch res.name {
	case "export", "readonly", "declare", "typeset", "local":
		args := make([]declArg, 0, len(res.args))
		for _, w := range res.args {
			args = append(args, in.declArgOfWord(w))
		}
		in.declare(res.name, args, ctx)
	case "unset":
		in.unset(res, ctx)
	case "set":
		if ctx.guard == "" {
			in.setOptions(in.rawWords(res.args))
		}
	case "source", ".":
		if len(res.args) > 0 {
			name := in.raw(res.args[0])
			if v, ok := in.probe(res.args[0]); ok {
				name = v
			}
			in.sourced = append(in.sourced, sourcedFile{name: name, pos: pos})
		}
	case "read", "mapfile", "readarray", "printf", "getopts":
		for _, name := range assignedByBuiltin(res.name, in.rawWords(res.args)) {
			in.setUnknown(name, pos, fmt.Sprintf("it is set at run time by `%s` on line %d", res.name, in.line(pos)))
		}
	}
}

// declArg is one argument of a declaration builtin: an option word, an
// assignment or a bare name (or nothing nodeboot can read).
type declArg struct {
	option string
	assign *assignment
	name   string
	pos    position
}

// declArgOfWord reads a word of export/declare/… written as a plain
// command (after a wrapper or a prefix assignment).
func (in *interp) declArgOfWord(w *syntax.Word) declArg {
	raw := in.raw(w)
	arg := declArg{pos: posOf(w.Pos())}
	if opts, ok := optionWord(raw); ok {
		arg.option = opts
	} else if a, ok := assignmentSplit(w); ok {
		arg.assign = &a
	} else if isName(raw) {
		arg.name = raw
	}
	return arg
}

// declArgOf reads an argument of a parsed declaration clause.
func (in *interp) declArgOf(a *syntax.Assign) declArg {
	arg := declArg{pos: posOf(a.Pos())}
	switch {
	case a.Naked && a.Name == nil:
		if opts, ok := optionWord(in.raw(a.Value)); ok {
			arg.option = opts
		}
	case a.Naked:
		arg.name = a.Name.Value
	default:
		as := assignmentOf(a)
		arg.assign = &as
	}
	return arg
}

// declarationOpaque are declare/typeset options whose values nodeboot does
// not model (arrays, integers, case conversion, namerefs).
const declarationOpaque = "aAilunfF"

// declare handles export, readonly, declare, typeset and local.
func (in *interp) declare(builtin string, args []declArg, ctx execContext) {
	export := builtin == "export"
	unexport, opaque := false, ""
	for _, a := range args {
		switch {
		case a.option != "":
			on := a.option[0] == '-'
			for _, o := range a.option[1:] {
				switch {
				case o == 'x':
					export, unexport = on, !on
				case o == 'n' && builtin == "export":
					export, unexport = false, true
				case strings.ContainsRune(declarationOpaque, o) && on:
					opaque = "-" + string(o)
				}
			}
		case a.assign != nil:
			in.assign(*a.assign, ctx, export)
			if opaque != "" {
				in.setUnknown(a.assign.name, a.pos, fmt.Sprintf("it is declared with %s on line %d", opaque, in.line(a.pos)))
			}
			in.markExport(a.assign.name, unexport)
		case a.name != "":
			v, _ := in.vars.lookup(a.name)
			v.exported = (v.exported || export) && !unexport
			in.vars.set(a.name, v)
		}
	}
}

func (in *interp) markExport(name string, unexport bool) {
	if unexport {
		v, _ := in.vars.lookup(name)
		v.exported = false
		in.vars.set(name, v)
	}
}

// optionWord recognises "-xr" or "+x" style option words.
func optionWord(s string) (string, bool) {
	if len(s) < 2 || (s[0] != '-' && s[0] != '+') || strings.ContainsAny(s, "=$'\"\\") {
		return "", false
	}
	return s, true
}

// assignmentSplit recognises NAME=value and NAME+=value words (given to
// env or sudo): the name and operator must be written unquoted at the
// start of the word.
func assignmentSplit(w *syntax.Word) (assignment, bool) {
	if len(w.Parts) == 0 {
		return assignment{}, false
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return assignment{}, false
	}
	i := 0
	for i < len(lit.Value) && isNameChar(lit.Value[i]) {
		i++
	}
	if i == 0 || !isNameStart(lit.Value[0]) {
		return assignment{}, false
	}
	op := ""
	switch rest := lit.Value[i:]; {
	case strings.HasPrefix(rest, "="):
		op = "="
	case strings.HasPrefix(rest, "+="):
		op = "+="
	default:
		return assignment{}, false
	}
	a := assignment{name: lit.Value[:i], appendOp: op == "+=", pos: posOf(w.Pos())}
	var parts []syntax.WordPart
	if rest := lit.Value[i+len(op):]; rest != "" {
		parts = append(parts, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: rest})
	}
	parts = append(parts, w.Parts[1:]...)
	if len(parts) > 0 {
		a.value = &syntax.Word{Parts: parts}
	}
	return a, true
}

func (in *interp) unset(res resolution, ctx execContext) {
	for _, w := range res.args {
		raw := in.raw(w)
		p := posOf(w.Pos())
		switch {
		case raw == "-f":
			return // functions: nothing to track
		case strings.HasPrefix(raw, "-"):
			continue
		case !isName(raw):
			continue
		case ctx.guard != "":
			in.setUnknown(raw, p, fmt.Sprintf("it is unset on line %d %s", in.line(p), ctx.guard))
		default:
			in.vars.set(raw, shellVar{pos: p})
		}
	}
}

// setOptions follows set -a / set -o allexport, which export every later
// assignment; other options do not matter here.
func (in *interp) setOptions(args []string) {
	for i := 0; i < len(args); i++ {
		s := args[i]
		switch {
		case s == "-o" || s == "+o":
			if i+1 < len(args) && args[i+1] == "allexport" {
				in.allexport = s == "-o"
			}
			i++
		case s == "--" || s == "-":
			return
		case len(s) > 1 && (s[0] == '-' || s[0] == '+'):
			if strings.ContainsRune(s[1:], 'a') {
				in.allexport = s[0] == '-'
			}
		default:
			return
		}
	}
}

// assignedByBuiltin lists the variables read, mapfile, readarray,
// printf -v and getopts assign, given their argument words as written.
func assignedByBuiltin(name string, args []string) []string {
	var out []string
	switch name {
	case "printf":
		for i, w := range args {
			if w == "-v" && i+1 < len(args) {
				out = append(out, args[i+1])
			}
		}
	case "getopts":
		if len(args) >= 2 {
			out = append(out, args[1])
		}
	case "mapfile", "readarray":
		if n := len(args); n > 0 && isName(args[n-1]) {
			out = append(out, args[n-1])
		} else {
			out = append(out, "MAPFILE")
		}
	case "read":
		out = readNames(args)
	}
	return out
}

// readNames returns the names `read` assigns (REPLY when none is given).
func readNames(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		s := args[i]
		switch {
		case s == "-a":
			if i+1 < len(args) {
				out = append(out, args[i+1])
			}
			i++
		case s == "-d" || s == "-i" || s == "-n" || s == "-N" || s == "-p" || s == "-t" || s == "-u":
			i++
		case strings.HasPrefix(s, "-"):
		case isName(s):
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		out = append(out, "REPLY")
	}
	return out
}

// rawWords returns the words as written.
func (in *interp) rawWords(words []*syntax.Word) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = in.raw(w)
	}
	return out
}
