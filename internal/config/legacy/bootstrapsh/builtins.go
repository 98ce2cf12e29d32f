package bootstrapsh

import (
	"fmt"
	"strings"
)

// builtin applies the builtins that change variables: export, readonly,
// declare, typeset, local, unset, set -a, source, read and friends.
// Every other command is left alone.
func (in *interp) builtin(cmd *simpleCommand, res resolution, ctx execContext) {
	switch res.name {
	case "export", "readonly", "declare", "typeset", "local":
		in.declare(res, ctx)
	case "unset":
		in.unset(res, ctx)
	case "set":
		if ctx.guard == "" {
			in.setOptions(res)
		}
	case "source", ".":
		if len(res.args) > 0 {
			name := res.args[0].raw
			if v, ok := in.probe(res.args[0]); ok {
				name = v
			}
			in.sourced = append(in.sourced, sourcedFile{name: name, pos: cmd.pos})
		}
	case "read", "mapfile", "readarray", "printf", "getopts":
		for _, name := range assignedByBuiltin(res.name, res.args) {
			in.setUnknown(name, cmd.pos, fmt.Sprintf("it is set at run time by `%s` on line %d", res.name, in.line(cmd.pos)))
		}
	}
}

// declarationOpaque are declare/typeset options whose values nodeboot does
// not model (arrays, integers, case conversion, namerefs).
const declarationOpaque = "aAilunfF"

// declare handles export, readonly, declare, typeset and local.
func (in *interp) declare(res resolution, ctx execContext) {
	export := res.name == "export"
	unexport, opaque := false, ""
	for _, w := range res.args {
		if opts, ok := optionWord(w); ok {
			on := opts[0] == '-'
			for _, o := range opts[1:] {
				switch {
				case o == 'x':
					export, unexport = on, !on
				case o == 'n' && res.name == "export":
					export, unexport = false, true
				case strings.ContainsRune(declarationOpaque, o) && on:
					opaque = "-" + string(o)
				}
			}
			continue
		}
		if name, appendOp, value, ok := w.assignmentSplit(); ok {
			in.assign(assignment{name: name, appendOp: appendOp, value: value, pos: w.pos}, ctx, export)
			if opaque != "" {
				in.setUnknown(name, w.pos, fmt.Sprintf("it is declared with %s on line %d", opaque, in.line(w.pos)))
			}
			in.markExport(name, unexport)
			continue
		}
		if isName(w.raw) {
			v := in.vars[w.raw]
			v.exported = (v.exported || export) && !unexport
			in.vars[w.raw] = v
		}
	}
}

func (in *interp) markExport(name string, unexport bool) {
	if unexport {
		v := in.vars[name]
		v.exported = false
		in.vars[name] = v
	}
}

// optionWord recognises "-xr" or "+x" style option words.
func optionWord(w word) (string, bool) {
	s := w.raw
	if len(s) < 2 || (s[0] != '-' && s[0] != '+') || strings.ContainsAny(s, "=$'\"\\") {
		return "", false
	}
	return s, true
}

func (in *interp) unset(res resolution, ctx execContext) {
	for _, w := range res.args {
		switch {
		case w.raw == "-f":
			return // functions: nothing to track
		case strings.HasPrefix(w.raw, "-"):
			continue
		case !isName(w.raw):
			continue
		case ctx.guard != "":
			in.setUnknown(w.raw, w.pos, fmt.Sprintf("it is unset on line %d %s", in.line(w.pos), ctx.guard))
		default:
			in.vars[w.raw] = shellVar{pos: w.pos}
		}
	}
}

// setOptions follows set -a / set -o allexport, which export every later
// assignment; other options do not matter here.
func (in *interp) setOptions(res resolution) {
	for i := 0; i < len(res.args); i++ {
		s := res.args[i].raw
		switch {
		case s == "-o" || s == "+o":
			if i+1 < len(res.args) && res.args[i+1].raw == "allexport" {
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
// printf -v and getopts assign.
func assignedByBuiltin(name string, args []word) []string {
	var out []string
	switch name {
	case "printf":
		for i, w := range args {
			if w.raw == "-v" && i+1 < len(args) {
				out = append(out, args[i+1].raw)
			}
		}
	case "getopts":
		if len(args) >= 2 {
			out = append(out, args[1].raw)
		}
	case "mapfile", "readarray":
		if n := len(args); n > 0 && isName(args[n-1].raw) {
			out = append(out, args[n-1].raw)
		} else {
			out = append(out, "MAPFILE")
		}
	case "read":
		out = readNames(args)
	}
	return out
}

// readNames returns the names `read` assigns (REPLY when none is given).
func readNames(args []word) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		s := args[i].raw
		switch {
		case s == "-a":
			if i+1 < len(args) {
				out = append(out, args[i+1].raw)
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
