package bootstrapsh

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// call is one bootstrap.sh invocation found in the script.
type call struct {
	pos  position
	args []argument
	env  map[string]envInput
}

// recordCall expands a call's arguments and environment at the point it
// runs, and reports the contexts nodeboot cannot follow.
func (in *interp) recordCall(s *syntax.Stmt, cmd *syntax.CallExpr, res resolution, ctx execContext) {
	pos := in.cmdPos(s)
	switch {
	case ctx.guard != "":
		in.errorf(pos, "bootstrap.sh is called %s: nodeboot reads only a call that always runs; move it out to its own line at the top level of the script", ctx.guard)
	case ctx.note != "":
		in.warnf(pos, "bootstrap.sh is called %s; nodeboot reads the call as if it ran on its own line", ctx.note)
	}
	c := &call{pos: pos, args: in.expandArgs(res.args), env: in.callEnv(cmd, res)}
	in.calls = append(in.calls, c)
}

// expandArgs expands the call's words. A word that cannot be expanded is
// reported and stands as one argument of unknown value, so that the flags
// after it are still read in place.
func (in *interp) expandArgs(words []*syntax.Word) []argument {
	var out []argument
	warnedIFS := false
	for i, w := range words {
		raw, pos := in.raw(w), posOf(w.Pos())
		fields, iss := in.expandFields(w)
		if iss != nil {
			if flag, ok := secretValue(in.rawWords(words[max(i-1, 0):i]), raw); ok {
				in.errorf(iss.pos, "the value of %s cannot be worked out without running the script (it is not shown: it may hold credentials); write the value itself", flag)
			} else {
				in.errorf(iss.pos, "bootstrap.sh argument %s: %s", excerpt(raw), iss.msg)
			}
			out = append(out, argument{text: raw, pos: in.at(pos), unknown: true})
			continue
		}
		if in.ifs != nil && !warnedIFS && hasUnquotedParam(w) {
			warnedIFS = true
			in.warnf(pos, "IFS is changed on line %d; nodeboot still splits unquoted variables on blanks", in.line(*in.ifs))
		}
		for _, f := range fields {
			out = append(out, argument{text: f, pos: in.at(pos)})
		}
	}
	return out
}

// secretValue reports whether the argument written raw, after the words
// before (the previous one or none), is the value of a secret option:
// "--docker-config-json VALUE" or "--docker-config-json=VALUE".
func secretValue(before []string, raw string) (string, bool) {
	if len(before) == 1 && isSecretOption(before[0]) {
		return before[0], true
	}
	if name, _, ok := strings.Cut(raw, "="); ok && isSecretOption(name) {
		return name, true
	}
	return "", false
}

func hasUnquotedParam(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if _, ok := p.(*syntax.ParamExp); ok {
			return true
		}
	}
	return false
}

// callEnv is the environment bootstrap.sh starts with: the script's
// exported variables and the call's own NAME=value prefixes, unless a
// wrapper cleared them, plus what env or sudo add.
func (in *interp) callEnv(cmd *syntax.CallExpr, res resolution) map[string]envInput {
	env := map[string]envInput{}
	if !res.envReset {
		for name, v := range in.vars.visible() {
			if v.exported && (v.set || v.unknown != "") {
				env[name] = envInput{value: v.value, unknown: v.unknown, pos: in.at(v.pos)}
			}
		}
		for _, a := range cmd.Assigns {
			as := assignmentOf(a)
			env[as.name] = in.envValue(as.value, as.pos)
		}
	}
	for _, a := range res.env {
		if a.unset {
			delete(env, a.name)
			continue
		}
		env[a.name] = in.envValue(a.value, a.pos)
	}
	return env
}

func (in *interp) envValue(value *syntax.Word, pos position) envInput {
	s, iss := in.expandString(value)
	if iss != nil {
		return envInput{unknown: fmt.Sprintf("it is set on line %d from %s", in.line(pos), iss.msg), pos: in.at(pos)}
	}
	return envInput{value: s, pos: in.at(pos)}
}

// reportCalls checks the number of calls.
func (in *interp) reportCalls() {
	if len(in.calls) < 2 {
		return
	}
	first := in.line(in.calls[0].pos)
	for _, c := range in.calls[1:] {
		in.problems.Errorf(in.src, "", in.at(c.pos), "bootstrap.sh is called again (first call on line %d): bash would run it twice; nodeboot reads one call per document, so keep only one", first)
	}
}

// argument is one word of a bootstrap.sh command line.
type argument struct {
	text string
	pos  diag.Position
	// unknown is set when the value could not be worked out; it has
	// already been reported.
	unknown bool
}

// envInput is one environment variable bootstrap.sh would see.
type envInput struct {
	value string
	// unknown explains a value nodeboot cannot know.
	unknown string
	pos     diag.Position
}
