package bootstrapsh

import (
	"bytes"
	"fmt"
	"strings"
)

// tokenKind classifies lexer output.
type tokenKind int

const (
	tokEOF tokenKind = iota
	tokWord
	tokNewline
	// tokOp is a control operator: && || ; ;; ;& ;;& | |& & ( ).
	tokOp
	// tokRedirect is a redirection operator, with an optional fd number.
	tokRedirect
	// tokArith is an arithmetic command ((…)), skipped as a whole.
	tokArith
)

// token is one lexer output.
type token struct {
	kind tokenKind
	op   string
	word word
	pos  position
}

// maxNesting bounds nested quotes, expansions and compound commands so
// hostile input cannot exhaust the stack.
const maxNesting = 100

// syntaxError stops parsing; it is recovered by parseScript only.
type syntaxError struct {
	pos position
	msg string
}

// lexer splits a shell script into tokens the way bash does, without
// performing any expansion. Here-document bodies are read when the lexer
// reaches the end of the line that announced them.
type lexer struct {
	data      []byte
	off       int
	line, col int
	// pending here-documents whose bodies start after the next newline.
	pending []*heredoc
	// crlf is set when a line ends in "\r\n".
	crlf  bool
	depth int
}

func newLexer(data []byte) *lexer { return &lexer{data: data, line: 1, col: 1} }

func (lx *lexer) fail(pos position, format string, args ...any) {
	panic(syntaxError{pos: pos, msg: fmt.Sprintf(format, args...)})
}

func (lx *lexer) pos() position { return position{lx.line, lx.col} }

func (lx *lexer) eof() bool { return lx.off >= len(lx.data) }

// at returns the byte i positions ahead, or 0 past the end.
func (lx *lexer) at(i int) byte {
	if lx.off+i < len(lx.data) {
		return lx.data[lx.off+i]
	}
	return 0
}

func (lx *lexer) hasPrefix(s string) bool {
	return len(lx.data)-lx.off >= len(s) && string(lx.data[lx.off:lx.off+len(s)]) == s
}

// advance moves n bytes on, keeping line and column.
func (lx *lexer) advance(n int) {
	for range n {
		if lx.off >= len(lx.data) {
			return
		}
		if lx.data[lx.off] == '\n' {
			lx.line++
			lx.col = 1
		} else {
			lx.col++
		}
		lx.off++
	}
}

// isCRLF reports a "\r" that ends a line.
func (lx *lexer) isCRLF() bool { return lx.at(0) == '\r' && lx.at(1) == '\n' }

// skipBlanks passes spaces, tabs, line continuations and comments.
func (lx *lexer) skipBlanks() {
	for !lx.eof() {
		switch c := lx.at(0); {
		case c == ' ' || c == '\t':
			lx.advance(1)
		case c == '\\' && lx.at(1) == '\n':
			lx.advance(2)
		case c == '\\' && lx.at(1) == '\r' && lx.at(2) == '\n':
			lx.crlf = true
			lx.advance(3)
		case lx.isCRLF():
			lx.crlf = true
			lx.advance(1)
		case c == '#':
			for !lx.eof() && lx.at(0) != '\n' {
				lx.advance(1)
			}
		default:
			return
		}
	}
}

// next returns the next token.
func (lx *lexer) next() token {
	lx.skipBlanks()
	start := lx.pos()
	if lx.eof() {
		return token{kind: tokEOF, pos: start}
	}
	c := lx.at(0)
	switch {
	case c == '\n':
		lx.advance(1)
		lx.readHeredocBodies()
		return token{kind: tokNewline, pos: start}
	case lx.hasPrefix("(("):
		lx.skipArithmetic()
		return token{kind: tokArith, pos: start}
	case (c == '<' || c == '>') && lx.at(1) == '(':
		return token{kind: tokWord, word: lx.lexWord(), pos: start}
	case c == '<' || c == '>' || (c == '&' && lx.at(1) == '>'):
		return lx.lexRedirect(start, "")
	case isDigit(c):
		if t, ok := lx.lexNumberedRedirect(start); ok {
			return t
		}
	}
	for _, op := range controlOps {
		if lx.hasPrefix(op) {
			lx.advance(len(op))
			return token{kind: tokOp, op: op, pos: start}
		}
	}
	return token{kind: tokWord, word: lx.lexWord(), pos: start}
}

// controlOps are matched longest first.
var controlOps = []string{";;&", "&&", "||", ";;", ";&", "|&", ";", "|", "&", "(", ")"}

// redirectOps are matched longest first.
var redirectOps = []string{"&>>", "<<<", "<<-", "&>", "<<", ">>", "<>", "<&", ">&", ">|", "<", ">"}

func (lx *lexer) lexRedirect(start position, fd string) token {
	for _, op := range redirectOps {
		if lx.hasPrefix(op) {
			lx.advance(len(op))
			return token{kind: tokRedirect, op: fd + op, pos: start}
		}
	}
	lx.fail(start, "unexpected %q", lx.at(0))
	return token{}
}

// lexNumberedRedirect reads "2>", "1>>", "0<" and the like.
func (lx *lexer) lexNumberedRedirect(start position) (token, bool) {
	n := 0
	for isDigit(lx.at(n)) {
		n++
	}
	if c := lx.at(n); (c != '<' && c != '>') || lx.at(n+1) == '(' {
		return token{}, false
	}
	fd := string(lx.data[lx.off : lx.off+n])
	lx.advance(n)
	return lx.lexRedirect(start, fd), true
}

// wordEnds reports an unquoted byte that ends a word.
func (lx *lexer) wordEnds() bool {
	switch lx.at(0) {
	case ' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>':
		return true
	}
	return lx.isCRLF()
}

// lexWord reads one word in unquoted context.
func (lx *lexer) lexWord() word {
	start, startOff := lx.pos(), lx.off
	var b partsBuilder
	for !lx.eof() {
		if (lx.at(0) == '<' || lx.at(0) == '>') && lx.at(1) == '(' && lx.off == startOff {
			b.add(lx.skipCommandLike(2, "process substitution"))
			continue
		}
		if lx.at(0) == '(' && lx.isArrayAssignment(startOff) {
			b.add(lx.skipCommandLike(1, "array assignment"))
			continue
		}
		if lx.wordEnds() {
			break
		}
		lx.lexUnquotedChar(&b)
	}
	return word{parts: b.result(), pos: start, raw: string(lx.data[startOff:lx.off])}
}

// isArrayAssignment reports "NAME=(" or "NAME+=(" so far.
func (lx *lexer) isArrayAssignment(startOff int) bool {
	raw := string(lx.data[startOff:lx.off])
	name, ok := strings.CutSuffix(raw, "=")
	if !ok {
		return false
	}
	name = strings.TrimSuffix(name, "+")
	return isName(name)
}

// lexUnquotedChar consumes one unquoted construct into b.
func (lx *lexer) lexUnquotedChar(b *partsBuilder) {
	pos := lx.pos()
	switch c := lx.at(0); c {
	case '\\':
		switch {
		case lx.at(1) == '\n':
			lx.advance(2)
		case lx.at(1) == '\r' && lx.at(2) == '\n':
			lx.crlf = true
			lx.advance(3)
		case lx.off+1 >= len(lx.data):
			lx.advance(1)
			b.literal(`\`, false, pos)
		default:
			b.literal(string(lx.at(1)), true, pos)
			lx.advance(2)
		}
	case '\'':
		b.literal(lx.lexSingleQuoted(), true, pos)
	case '"':
		lx.lexDoubleQuoted(b)
	case '$':
		lx.lexDollar(b, false)
	case '`':
		b.add(lx.skipBackquoted())
	default:
		n := lx.run(unquotedSpecial)
		b.literal(string(lx.data[lx.off:lx.off+n]), false, pos)
		lx.advance(n)
	}
}

// Bytes that end a run of plain characters.
const (
	unquotedSpecial = " \t\n\r;&|()<>\\'\"$`"
	quotedSpecial   = "\"\\$`"
)

// run returns the length (at least 1) of the run of bytes at the current
// offset that are not in special.
func (lx *lexer) run(special string) int {
	n := 1
	for lx.off+n < len(lx.data) && strings.IndexByte(special, lx.data[lx.off+n]) < 0 {
		n++
	}
	return n
}

// lexSingleQuoted reads '…' and returns its content.
func (lx *lexer) lexSingleQuoted() string {
	start := lx.pos()
	lx.advance(1)
	i := bytes.IndexByte(lx.data[lx.off:], '\'')
	if i < 0 {
		lx.fail(start, "unterminated single quote: no closing ' before the end of the script")
	}
	s := string(lx.data[lx.off : lx.off+i])
	lx.advance(i + 1)
	return s
}

// lexDoubleQuoted reads "…" into b.
func (lx *lexer) lexDoubleQuoted(b *partsBuilder) {
	start := lx.pos()
	lx.enter(start)
	defer lx.leave()
	lx.advance(1)
	for {
		if lx.eof() {
			lx.fail(start, `unterminated double quote: no closing " before the end of the script`)
		}
		pos := lx.pos()
		switch c := lx.at(0); c {
		case '"':
			lx.advance(1)
			b.literal("", true, start) // "" still makes a word
			return
		case '\\':
			lx.lexQuotedEscape(b, pos)
		case '$':
			lx.lexDollar(b, true)
		case '`':
			q := lx.skipBackquoted()
			q.quoted = true
			b.add(q)
		default:
			n := lx.run(quotedSpecial)
			b.literal(string(lx.data[lx.off:lx.off+n]), true, pos)
			lx.advance(n)
		}
	}
}

// lexQuotedEscape handles a backslash inside double quotes: it escapes
// only $ ` " \ and newline.
func (lx *lexer) lexQuotedEscape(b *partsBuilder, pos position) {
	switch n := lx.at(1); {
	case n == '\n':
		lx.advance(2)
	case n == '\r' && lx.at(2) == '\n':
		lx.crlf = true
		lx.advance(3)
	case strings.IndexByte("$`\"\\", n) >= 0 && lx.off+1 < len(lx.data):
		b.literal(string(n), true, pos)
		lx.advance(2)
	default:
		b.literal(`\`, true, pos)
		lx.advance(1)
	}
}

func (lx *lexer) enter(pos position) {
	lx.depth++
	if lx.depth > maxNesting {
		lx.fail(pos, "quotes and expansions nested more than %d deep", maxNesting)
	}
}

func (lx *lexer) leave() { lx.depth-- }
