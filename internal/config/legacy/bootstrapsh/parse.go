package bootstrapsh

// parser is a recursive-descent parser for the part of bash's grammar that
// user data uses: lists, and-or lists, pipelines, simple commands with
// assignments and redirections (here-documents included), if, for, select,
// while, until, case, { }, ( ), (( )), [[ ]] and function definitions.
type parser struct {
	lx    *lexer
	tok   token
	have  bool
	depth int
}

// parseScript parses a whole script. A syntax error is returned, never
// panicked.
func parseScript(data []byte) (l list, crlf bool, err *syntaxError) {
	p := &parser{lx: newLexer(data)}
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(syntaxError)
			if !ok {
				panic(r)
			}
			err = &se
		}
	}()
	l = p.parseList()
	if t := p.peek(); t.kind != tokEOF {
		p.unexpected(t)
	}
	return l, p.lx.crlf, nil
}

func (p *parser) peek() token {
	if !p.have {
		p.tok = p.lx.next()
		p.have = true
	}
	return p.tok
}

func (p *parser) next() token {
	t := p.peek()
	p.have = false
	return t
}

func (p *parser) unexpected(t token) {
	p.lx.fail(t.pos, "syntax error near unexpected %s", describeToken(t))
}

func describeToken(t token) string {
	switch t.kind {
	case tokEOF:
		return "end of script"
	case tokNewline:
		return "end of line"
	case tokWord:
		return "word `" + excerpt(t.word.raw) + "'"
	case tokArith:
		return "`(('"
	}
	return "token `" + t.op + "'"
}

// isWord reports a token that is the unquoted word s.
func isWord(t token, s string) bool { return t.kind == tokWord && t.word.isRaw(s) }

func isOp(t token, ops ...string) bool {
	if t.kind != tokOp {
		return false
	}
	for _, op := range ops {
		if t.op == op {
			return true
		}
	}
	return false
}

// endsList reports the tokens that close a list: reserved words and
// operators that belong to an enclosing construct.
func endsList(t token) bool {
	if t.kind == tokEOF || isOp(t, ")", ";;", ";&", ";;&") {
		return true
	}
	for _, w := range []string{"then", "elif", "else", "fi", "do", "done", "esac", "}"} {
		if isWord(t, w) {
			return true
		}
	}
	return false
}

func (p *parser) skipNewlines() {
	for p.peek().kind == tokNewline {
		p.next()
	}
}

func (p *parser) expectWord(w string) {
	if t := p.peek(); !isWord(t, w) {
		p.lx.fail(t.pos, "syntax error: expected `%s', found %s", w, describeToken(t))
	}
	p.next()
}

func (p *parser) expectOp(op string) {
	if t := p.peek(); !isOp(t, op) {
		p.lx.fail(t.pos, "syntax error: expected `%s', found %s", op, describeToken(t))
	}
	p.next()
}

// parseList parses and-or lists until a token that ends the list.
func (p *parser) parseList() list {
	var out list
	for {
		p.skipNewlines()
		if endsList(p.peek()) {
			return out
		}
		ao := p.parseAndOr()
		switch t := p.peek(); {
		case isOp(t, ";"), t.kind == tokNewline:
			p.next()
		case isOp(t, "&"):
			p.next()
			ao.background = true
		case !endsList(t):
			p.unexpected(t)
		}
		out = append(out, ao)
	}
}

func (p *parser) parseAndOr() andOr {
	ao := andOr{pipelines: []pipeline{p.parsePipeline()}}
	for {
		t := p.peek()
		if !isOp(t, "&&", "||") {
			return ao
		}
		p.next()
		p.skipNewlines()
		ao.ops = append(ao.ops, t.op)
		ao.opPos = append(ao.opPos, t.pos)
		ao.pipelines = append(ao.pipelines, p.parsePipeline())
	}
}

func (p *parser) parsePipeline() pipeline {
	var pl pipeline
	if isWord(p.peek(), "!") {
		p.next()
		pl.negated = true
	}
	pl.cmds = append(pl.cmds, p.parseCommand())
	for isOp(p.peek(), "|", "|&") {
		p.next()
		p.skipNewlines()
		pl.cmds = append(pl.cmds, p.parseCommand())
	}
	return pl
}

// parseCommand parses one command of a pipeline.
func (p *parser) parseCommand() command {
	t := p.peek()
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		p.lx.fail(t.pos, "commands nested more than %d deep", maxNesting)
	}
	var c *compound
	switch {
	case t.kind == tokArith:
		p.next()
		c = &compound{kind: kindArith, pos: t.pos}
	case isOp(t, "("):
		c = p.parseSubshell()
	case isWord(t, "if"):
		c = p.parseIf()
	case isWord(t, "for"), isWord(t, "select"):
		c = p.parseFor()
	case isWord(t, "while"), isWord(t, "until"):
		c = p.parseWhile()
	case isWord(t, "case"):
		c = p.parseCase()
	case isWord(t, "{"):
		c = p.parseGroup()
	case isWord(t, "[["):
		c = p.parseCond()
	case isWord(t, "function"):
		return p.parseFunctionKeyword()
	case t.kind == tokWord, t.kind == tokRedirect:
		return p.parseSimple()
	default:
		p.unexpected(t)
	}
	for p.peek().kind == tokRedirect {
		c.redirs = append(c.redirs, p.parseRedirect())
	}
	return c
}

func (p *parser) parseSimple() command {
	cmd := &simpleCommand{pos: p.peek().pos}
	for {
		t := p.peek()
		switch t.kind {
		case tokRedirect:
			cmd.redirs = append(cmd.redirs, p.parseRedirect())
			continue
		case tokWord:
		default:
			return cmd
		}
		p.next()
		if len(cmd.args) == 0 {
			if name, appendOp, value, ok := t.word.assignmentSplit(); ok {
				cmd.assigns = append(cmd.assigns, assignment{
					name: name, appendOp: appendOp, value: value, pos: t.pos,
					array: len(value) > 0 && value[0].kind == partUnsupported && value[0].what == "array assignment",
				})
				continue
			}
			if len(cmd.assigns) == 0 && len(cmd.redirs) == 0 && isOp(p.peek(), "(") {
				return p.parseFunctionBody(t.word.raw, t.pos)
			}
		}
		cmd.args = append(cmd.args, t.word)
	}
}

// parseRedirect reads an operator and its target; a here-document is
// registered with the lexer, which fills its body at the end of the line.
func (p *parser) parseRedirect() redirect {
	t := p.next()
	target := p.next()
	if target.kind != tokWord {
		p.lx.fail(target.pos, "syntax error: %s after redirection `%s'", describeToken(target), t.op)
	}
	r := redirect{op: t.op, target: target.word, pos: t.pos}
	if op := trimFD(t.op); op == "<<" || op == "<<-" {
		r.doc = &heredoc{delim: heredocDelimiter(target.word), stripTab: op == "<<-"}
		p.lx.pending = append(p.lx.pending, r.doc)
	}
	return r
}

// trimFD drops a leading fd number from a redirection operator.
func trimFD(op string) string {
	i := 0
	for i < len(op) && isDigit(op[i]) {
		i++
	}
	return op[i:]
}

func (p *parser) parseSubshell() *compound {
	pos := p.next().pos
	body := p.parseList()
	p.expectOp(")")
	return &compound{kind: kindSubshell, lists: []list{body}, pos: pos}
}

func (p *parser) parseGroup() *compound {
	pos := p.next().pos
	body := p.parseList()
	p.expectWord("}")
	return &compound{kind: kindGroup, lists: []list{body}, pos: pos}
}

func (p *parser) parseIf() *compound {
	c := &compound{kind: kindIf, pos: p.next().pos}
	for {
		c.lists = append(c.lists, p.parseList())
		p.expectWord("then")
		c.lists = append(c.lists, p.parseList())
		if !isWord(p.peek(), "elif") {
			break
		}
		p.next()
	}
	if isWord(p.peek(), "else") {
		p.next()
		c.lists = append(c.lists, p.parseList())
	}
	p.expectWord("fi")
	return c
}

func (p *parser) parseFor() *compound {
	t := p.next()
	c := &compound{kind: kindFor, pos: t.pos}
	if isWord(t, "select") {
		c.kind = kindSelect
	}
	if p.peek().kind == tokArith {
		p.next()
	} else {
		name := p.next()
		if name.kind != tokWord || !isName(name.word.raw) {
			p.lx.fail(name.pos, "syntax error: %s is not a loop variable name", describeToken(name))
		}
		c.loopVar = name.word.raw
		p.skipNewlines()
		if isWord(p.peek(), "in") {
			p.next()
			for p.peek().kind == tokWord {
				p.next()
			}
		}
	}
	if isOp(p.peek(), ";") {
		p.next()
	}
	p.skipNewlines()
	p.parseDoGroup(c)
	return c
}

func (p *parser) parseWhile() *compound {
	t := p.next()
	c := &compound{kind: kindWhile, pos: t.pos}
	if isWord(t, "until") {
		c.kind = kindUntil
	}
	c.lists = append(c.lists, p.parseList())
	p.parseDoGroup(c)
	return c
}

// parseDoGroup reads the "do list done" body of a loop into c.
func (p *parser) parseDoGroup(c *compound) {
	p.expectWord("do")
	c.lists = append(c.lists, p.parseList())
	p.expectWord("done")
}

func (p *parser) parseCase() *compound {
	c := &compound{kind: kindCase, pos: p.next().pos}
	if t := p.next(); t.kind != tokWord {
		p.lx.fail(t.pos, "syntax error: case needs a word, found %s", describeToken(t))
	}
	p.skipNewlines()
	p.expectWord("in")
	for {
		p.skipNewlines()
		if isWord(p.peek(), "esac") {
			p.next()
			return c
		}
		p.parseCasePatterns()
		c.lists = append(c.lists, p.parseList())
		if isOp(p.peek(), ";;", ";&", ";;&") {
			p.next()
		} else if t := p.peek(); !isWord(t, "esac") {
			p.unexpected(t)
		}
	}
}

// parseCasePatterns reads "[(] pattern [| pattern]… )".
func (p *parser) parseCasePatterns() {
	if isOp(p.peek(), "(") {
		p.next()
	}
	for {
		if t := p.next(); t.kind != tokWord {
			p.lx.fail(t.pos, "syntax error: case pattern expected, found %s", describeToken(t))
		}
		if !isOp(p.peek(), "|") {
			break
		}
		p.next()
	}
	p.expectOp(")")
}

// parseCond skips a [[ … ]] test: its words are not commands.
func (p *parser) parseCond() *compound {
	c := &compound{kind: kindCond, pos: p.next().pos}
	for {
		t := p.next()
		switch {
		case isWord(t, "]]"):
			return c
		case t.kind == tokEOF:
			p.lx.fail(c.pos, "syntax error: [[ is not closed by ]]")
		}
	}
}

func (p *parser) parseFunctionKeyword() command {
	pos := p.next().pos
	name := p.next()
	if name.kind != tokWord {
		p.lx.fail(name.pos, "syntax error: function name expected, found %s", describeToken(name))
	}
	if isOp(p.peek(), "(") {
		return p.parseFunctionBody(name.word.raw, pos)
	}
	p.skipNewlines()
	return &funcDef{name: name.word.raw, body: p.parseCommand(), pos: pos}
}

// parseFunctionBody reads "( )" and the body of NAME() BODY.
func (p *parser) parseFunctionBody(name string, pos position) command {
	p.expectOp("(")
	p.expectOp(")")
	p.skipNewlines()
	return &funcDef{name: name, body: p.parseCommand(), pos: pos}
}
