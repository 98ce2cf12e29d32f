package bootstrapsh

import (
	"fmt"
	"maps"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// interp walks the syntax tree in execution order without running
// anything: it tracks variables the way bash would assign them, records
// the bootstrap.sh calls with their expanded arguments, and reports the
// constructs it cannot follow.
type interp struct {
	src       diag.Source
	base      int
	vars      map[string]shellVar
	allexport bool
	// ifs is where IFS was assigned, if it was.
	ifs *position
	// sourced lists `source FILE` commands, for hints about unset variables.
	sourced []sourcedFile
	// exited is where the script unconditionally exits or execs.
	exited   *position
	calls    []*call
	problems diag.List
}

type sourcedFile struct {
	name string
	pos  position
}

// execContext says how a command runs relative to the script's own shell.
type execContext struct {
	// guard says why the command may not run exactly once, e.g.
	// "inside the if statement on line 3"; "" when it always runs.
	guard string
	// note says how an unconditional command runs unusually, e.g.
	// "in a pipeline on line 7".
	note string
	// subshell is set when assignments do not reach the script's shell.
	subshell bool
}

func newInterp(src diag.Source, base int) *interp {
	return &interp{src: src, base: base, vars: map[string]shellVar{}}
}

// line converts a script line to a line of the whole user data.
func (in *interp) line(p position) int { return in.base + p.line - 1 }

func (in *interp) at(p position) diag.Position {
	return diag.Position{Line: in.line(p), Column: p.col}
}

func (in *interp) errorf(p position, format string, args ...any) {
	in.problems.Errorf(in.src, "", in.at(p), format, args...)
}

func (in *interp) warnf(p position, format string, args ...any) {
	in.problems.Warnf(in.src, "", in.at(p), format, args...)
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (in *interp) walkList(l list, ctx execContext) {
	for _, ao := range l {
		in.walkAndOr(ao, ctx)
	}
}

func (in *interp) walkAndOr(ao andOr, ctx execContext) {
	if ao.background {
		ctx.note = firstOf(ctx.note, "in the background (&)")
		ctx.subshell = true
	}
	for i, pl := range ao.pipelines {
		c := ctx
		switch {
		case i > 0:
			c.guard = firstOf(c.guard, fmt.Sprintf("after %s on line %d", ao.ops[i-1], in.line(ao.opPos[i-1])))
		case len(ao.pipelines) > 1:
			c.note = firstOf(c.note, fmt.Sprintf("followed by %s on line %d", ao.ops[0], in.line(ao.opPos[0])))
		}
		in.walkPipeline(pl, c)
	}
}

func (in *interp) walkPipeline(pl pipeline, ctx execContext) {
	if pl.negated {
		ctx.note = firstOf(ctx.note, "negated with !")
	}
	if len(pl.cmds) > 1 {
		ctx.note = firstOf(ctx.note, fmt.Sprintf("in a pipeline on line %d", in.line(pl.cmds[0].start())))
		ctx.subshell = true
		in.checkPipedToShell(pl)
	}
	for _, cmd := range pl.cmds {
		if ctx.subshell {
			in.inSubshell(func() { in.walkCommand(cmd, ctx) })
		} else {
			in.walkCommand(cmd, ctx)
		}
	}
}

// inSubshell runs fn and then forgets the variables it set.
func (in *interp) inSubshell(fn func()) {
	vars, allexport := maps.Clone(in.vars), in.allexport
	fn()
	in.vars, in.allexport = vars, allexport
}

func (in *interp) walkCommand(cmd command, ctx execContext) {
	switch c := cmd.(type) {
	case *simpleCommand:
		in.simple(c, ctx)
	case *funcDef:
		ctx.guard = firstOf(ctx.guard, fmt.Sprintf("inside function %s (defined on line %d)", c.name, in.line(c.pos)))
		in.walkCommand(c.body, ctx)
	case *compound:
		in.compound(c, ctx)
	}
}

func (in *interp) compound(c *compound, ctx execContext) {
	in.checkRedirects(c.redirs, resolution{}, c.pos)
	switch c.kind {
	case kindArith, kindCond:
		return
	case kindGroup:
	case kindSubshell:
		ctx.subshell = true
		in.inSubshell(func() {
			for _, l := range c.lists {
				in.walkList(l, ctx)
			}
		})
		return
	default:
		ctx.guard = firstOf(ctx.guard, fmt.Sprintf("inside the %s on line %d", c.kind, in.line(c.pos)))
	}
	if c.loopVar != "" {
		in.setUnknown(c.loopVar, c.pos, "it is the variable of the "+string(c.kind)+fmt.Sprintf(" on line %d", in.line(c.pos)))
	}
	for _, l := range c.lists {
		in.walkList(l, ctx)
	}
}

// simple interprets one simple command.
func (in *interp) simple(cmd *simpleCommand, ctx execContext) {
	res := in.resolve(cmd)
	if in.exited != nil {
		if res.isCall {
			in.warnf(cmd.pos, "this bootstrap.sh call never runs: the script exits on line %d before it; ignored", in.line(*in.exited))
		}
		return
	}
	if !res.isCall {
		in.checkSubstitutions(cmd)
	}
	if len(cmd.args) == 0 {
		for _, a := range cmd.assigns {
			in.assign(a, ctx, false)
		}
		in.checkRedirects(cmd.redirs, res, cmd.pos)
		return
	}
	if res.isCall {
		in.recordCall(cmd, res, ctx)
	} else {
		in.builtin(cmd, res, ctx)
		in.checkMentions(cmd, res)
	}
	in.checkRedirects(cmd.redirs, res, cmd.pos)
	if (res.exec && res.name != "") || res.name == "exit" {
		if ctx.guard == "" && !ctx.subshell {
			p := cmd.pos
			in.exited = &p
		}
	}
}

// assign applies NAME=value.
func (in *interp) assign(a assignment, ctx execContext, export bool) {
	old := in.vars[a.name]
	v := shellVar{set: true, exported: old.exported || export || in.allexport, pos: a.pos}
	value, iss := in.expandString(a.value)
	switch {
	case ctx.guard != "":
		v.unknown = fmt.Sprintf("it is assigned on line %d %s, which nodeboot cannot evaluate", in.line(a.pos), ctx.guard)
	case a.array:
		v.unknown = fmt.Sprintf("it is an array (line %d)", in.line(a.pos))
	case iss != nil:
		v.unknown = fmt.Sprintf("it is assigned on line %d from %s", in.line(a.pos), iss.msg)
	case a.appendOp && old.unknown != "":
		v.unknown = old.unknown
	case a.appendOp:
		v.value = old.value + value
	default:
		v.value = value
	}
	if a.name == "IFS" {
		p := a.pos
		in.ifs = &p
	}
	in.vars[a.name] = v
}

// setUnknown marks a variable whose value is decided at run time.
func (in *interp) setUnknown(name string, pos position, why string) {
	old := in.vars[name]
	in.vars[name] = shellVar{set: true, unknown: why, exported: old.exported || in.allexport, pos: pos}
}
