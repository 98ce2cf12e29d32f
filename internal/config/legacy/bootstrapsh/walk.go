package bootstrapsh

import (
	"fmt"

	"mvdan.cc/sh/v3/syntax"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// position is a 1-based line and byte column inside the script (not yet
// shifted by the document's first line).
type position struct{ line, col int }

// posOf converts a parser position.
func posOf(p syntax.Pos) position { return position{line: int(p.Line()), col: int(p.Col())} }

// interp walks the syntax tree in execution order without running
// anything: it tracks variables the way bash would assign them, records
// the bootstrap.sh calls with their expanded arguments, and reports the
// constructs it cannot follow.
type interp struct {
	src  diag.Source
	base int
	// data is the script the positions point into.
	data      []byte
	vars      *scope
	allexport bool
	// ifs is where IFS was assigned, if it was.
	ifs *position
	// sourced lists `source FILE` commands, for hints about unset variables.
	sourced []sourcedFile
	// exited is where the script unconditionally exits or execs.
	exited *position
	// extraArgsPatch is what eksctl's sed patch of bootstrap.sh makes
	// it append to --kubelet-extra-args (see readExtraArgsPatch).
	extraArgsPatch string
	calls          []*call
	problems       diag.List
	budget         *expansionBudget
	// nested is set while looking for calls inside a command
	// substitution: only the calls matter then, and parent is the
	// interpreter of the script itself.
	nested bool
	parent *interp
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

func newInterp(src diag.Source, base int, data []byte) *interp {
	return &interp{src: src, base: base, data: data, vars: newScope(nil), budget: &expansionBudget{left: maxExpansion}}
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

// raw is the source text of a node.
func (in *interp) raw(n syntax.Node) string {
	if n == nil {
		return ""
	}
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start > end || end > len(in.data) {
		return ""
	}
	return string(in.data[start:end])
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (in *interp) walkStmts(stmts []*syntax.Stmt, ctx execContext) {
	for _, s := range stmts {
		in.walkAndOr(s, ctx)
	}
}

// operator is a && or || and where it stands.
type operator struct {
	op  string
	pos position
}

// walkAndOr walks one list element: pipelines joined by && and ||, maybe
// in the background.
func (in *interp) walkAndOr(s *syntax.Stmt, ctx execContext) {
	if s.Background {
		ctx.note = firstOf(ctx.note, "in the background (&)")
		ctx.subshell = true
		in.inSubshell(func() { in.walkChain(s, ctx) })
		return
	}
	in.walkChain(s, ctx)
}

func (in *interp) walkChain(s *syntax.Stmt, ctx execContext) {
	chain, ops := andOrChain(s)
	for i, pl := range chain {
		c := ctx
		switch {
		case i > 0:
			c.guard = firstOf(c.guard, fmt.Sprintf("after %s on line %d", ops[i-1].op, in.line(ops[i-1].pos)))
		case len(chain) > 1:
			c.note = firstOf(c.note, fmt.Sprintf("followed by %s on line %d", ops[0].op, in.line(ops[0].pos)))
		}
		in.walkPipeline(pl, c)
	}
}

// andOrChain flattens a && b || c, which the parser nests to the left,
// into its pipelines and operators.
func andOrChain(s *syntax.Stmt) ([]*syntax.Stmt, []operator) {
	var chain []*syntax.Stmt
	var ops []operator
	for {
		b, ok := s.Cmd.(*syntax.BinaryCmd)
		if !ok || (b.Op != syntax.AndStmt && b.Op != syntax.OrStmt) {
			break
		}
		chain = append(chain, b.Y)
		ops = append(ops, operator{op: b.Op.String(), pos: posOf(b.OpPos)})
		s = b.X
	}
	chain = append(chain, s)
	reverse(chain)
	reverse(ops)
	return chain, ops
}

// pipeChain flattens a | b | c into its commands.
func pipeChain(s *syntax.Stmt) []*syntax.Stmt {
	var cmds []*syntax.Stmt
	for {
		b, ok := s.Cmd.(*syntax.BinaryCmd)
		if !ok || (b.Op != syntax.Pipe && b.Op != syntax.PipeAll) {
			break
		}
		cmds = append(cmds, b.Y)
		s = b.X
	}
	cmds = append(cmds, s)
	reverse(cmds)
	return cmds
}

func reverse[T any](s []T) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

func (in *interp) walkPipeline(pl *syntax.Stmt, ctx execContext) {
	if pl.Negated {
		ctx.note = firstOf(ctx.note, "negated with !")
	}
	cmds := pipeChain(pl)
	if len(cmds) > 1 {
		ctx.note = firstOf(ctx.note, fmt.Sprintf("in a pipeline on line %d", in.line(in.cmdPos(cmds[0]))))
		ctx.subshell = true
		in.checkPipedToShell(cmds)
	}
	if len(cmds) == 1 {
		in.walkCommand(cmds[0], ctx)
		return
	}
	for _, cmd := range cmds { // each command of a pipeline runs in its own subshell
		in.inSubshell(func() { in.walkCommand(cmd, ctx) })
	}
}

// inSubshell runs fn and then forgets the variables it set.
func (in *interp) inSubshell(fn func()) {
	vars, allexport := in.vars, in.allexport
	in.vars = newScope(vars)
	fn()
	in.vars, in.allexport = vars, allexport
}

// cmdPos is where a command starts: its first word, assignment or
// redirection.
func (in *interp) cmdPos(s *syntax.Stmt) position {
	start := s.Pos()
	if s.Cmd != nil {
		start = s.Cmd.Pos()
	}
	for _, r := range s.Redirs {
		if r.Pos().Offset() < start.Offset() {
			start = r.Pos()
		}
	}
	return posOf(start)
}

// walkCommand interprets one command of a pipeline with its redirections.
func (in *interp) walkCommand(s *syntax.Stmt, ctx execContext) {
	pos := in.cmdPos(s)
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		in.simple(s, c, ctx)
		return
	case *syntax.DeclClause:
		in.declClause(s, c, ctx)
		return
	case *syntax.TimeClause:
		in.checkRedirects(s.Redirs, resolution{}, pos)
		if c.Stmt != nil {
			in.walkPipeline(c.Stmt, ctx)
		}
		return
	case *syntax.FuncDecl:
		name := ""
		if c.Name != nil {
			name = c.Name.Value
		}
		ctx.guard = firstOf(ctx.guard, fmt.Sprintf("inside function %s (defined on line %d)", name, in.line(posOf(c.Pos()))))
		if c.Body != nil {
			in.walkCommand(c.Body, ctx)
		}
		return
	}
	in.checkRedirects(s.Redirs, resolution{}, pos)
	in.compound(s.Cmd, ctx)
}

// compound interprets a compound command.
func (in *interp) compound(cmd syntax.Command, ctx execContext) {
	guard := func(kind string) execContext {
		c := ctx
		c.guard = firstOf(c.guard, fmt.Sprintf("inside the %s on line %d", kind, in.line(posOf(cmd.Pos()))))
		return c
	}
	switch c := cmd.(type) {
	case *syntax.Block:
		in.walkStmts(c.Stmts, ctx)
	case *syntax.Subshell:
		ctx.subshell = true
		in.inSubshell(func() { in.walkStmts(c.Stmts, ctx) })
	case *syntax.IfClause:
		g := guard("if statement")
		for clause := c; clause != nil; clause = clause.Else {
			in.walkStmts(clause.Cond, g)
			in.walkStmts(clause.Then, g)
		}
	case *syntax.WhileClause:
		kind := "while loop"
		if c.Until {
			kind = "until loop"
		}
		g := guard(kind)
		in.walkStmts(c.Cond, g)
		in.walkStmts(c.Do, g)
	case *syntax.ForClause:
		kind := "for loop"
		if c.Select {
			kind = "select loop"
		}
		g := guard(kind)
		if it, ok := c.Loop.(*syntax.WordIter); ok && it.Name != nil {
			in.setUnknown(it.Name.Value, posOf(c.Pos()), fmt.Sprintf("it is the variable of the %s on line %d", kind, in.line(posOf(c.Pos()))))
		}
		in.walkStmts(c.Do, g)
	case *syntax.CaseClause:
		g := guard("case statement")
		for _, item := range c.Items {
			in.walkStmts(item.Stmts, g)
		}
	case *syntax.CoprocClause:
		ctx.note = firstOf(ctx.note, "in a coprocess (coproc)")
		ctx.subshell = true
		if c.Stmt != nil {
			in.inSubshell(func() { in.walkPipeline(c.Stmt, ctx) })
		}
	}
	// (( … )), [[ … ]] and let run no commands.
}

// simple interprets one simple command.
func (in *interp) simple(s *syntax.Stmt, cmd *syntax.CallExpr, ctx execContext) {
	pos := in.cmdPos(s)
	res := in.resolve(cmd.Args)
	if in.exited != nil {
		if res.isCall {
			in.warnf(pos, "this bootstrap.sh call never runs: the script exits on line %d before it; ignored", in.line(*in.exited))
		}
		return
	}
	if !res.isCall {
		in.checkSubstitutions(s)
	}
	if len(cmd.Args) == 0 {
		for _, a := range cmd.Assigns {
			in.assign(assignmentOf(a), ctx, false)
		}
		in.checkRedirects(s.Redirs, res, pos)
		return
	}
	if res.isCall {
		in.recordCall(s, cmd, res, ctx)
	} else {
		in.builtin(res, ctx, pos)
		in.checkMentions(cmd, res, pos)
	}
	in.checkRedirects(s.Redirs, res, pos)
	if (res.exec && res.name != "") || res.name == "exit" {
		if ctx.guard == "" && !ctx.subshell {
			in.exited = &pos
		}
	}
}

// declClause interprets export, declare, local, readonly and typeset
// written as such (the parser gives them their own node).
func (in *interp) declClause(s *syntax.Stmt, d *syntax.DeclClause, ctx execContext) {
	pos := in.cmdPos(s)
	if in.exited != nil {
		return
	}
	in.checkSubstitutions(s)
	args := make([]declArg, 0, len(d.Args))
	for _, a := range d.Args {
		args = append(args, in.declArgOf(a))
	}
	in.declare(d.Variant.Value, args, ctx)
	in.checkRedirects(s.Redirs, resolution{name: d.Variant.Value}, pos)
}

// assignment is NAME=value or NAME+=value.
type assignment struct {
	name     string
	appendOp bool
	// value is nil for NAME= (empty).
	value *syntax.Word
	pos   position
	// array is set for NAME=(…) and NAME[i]=…, whose values are never known.
	array bool
}

// assignmentOf converts a parsed assignment.
func assignmentOf(a *syntax.Assign) assignment {
	out := assignment{appendOp: a.Append, value: a.Value, pos: posOf(a.Pos()), array: a.Array != nil || a.Index != nil}
	if a.Name != nil {
		out.name = a.Name.Value
	}
	return out
}

// assign applies NAME=value.
func (in *interp) assign(a assignment, ctx execContext, export bool) {
	old, _ := in.vars.lookup(a.name)
	v := shellVar{set: true, exported: old.exported || export || in.allexport, pos: a.pos}
	value, iss := in.expandString(a.value)
	switch {
	case ctx.guard != "":
		v.unknown = fmt.Sprintf("it is assigned on line %d %s, which nodeboot cannot evaluate", in.line(a.pos), ctx.guard)
	case a.array:
		v.unknown = fmt.Sprintf("it is an array (line %d)", in.line(a.pos))
	case iss != nil:
		v.unknown, v.origin = assignedFrom(in.line(a.pos), iss)
	case a.appendOp && old.unknown != "":
		v.unknown, v.origin = old.unknown, old.origin
	case a.appendOp:
		if iss := in.spend(len(old.value)+len(value), a.pos); iss != nil {
			v.unknown, v.origin = assignedFrom(in.line(a.pos), iss)
		} else {
			v.value = old.value + value
		}
	default:
		v.value = value
	}
	if a.name == "IFS" {
		p := a.pos
		in.ifs = &p
	}
	in.vars.set(a.name, v)
}

// setUnknown marks a variable whose value is decided at run time.
func (in *interp) setUnknown(name string, pos position, why string) {
	old, _ := in.vars.lookup(name)
	in.vars.set(name, shellVar{set: true, unknown: why, exported: old.exported || in.allexport, pos: pos})
}
