package bootstrapsh

import (
	"strconv"
	"strings"
)

// specialParams are the one-character special parameters ($@, $? …).
const specialParams = "@*#?$!-"

// lexDollar reads an expansion starting at "$" into b.
func (lx *lexer) lexDollar(b *partsBuilder, quoted bool) {
	pos := lx.pos()
	next := lx.at(1)
	switch {
	case lx.off+1 >= len(lx.data):
		b.literal("$", quoted, pos)
		lx.advance(1)
	case next == '\'' && !quoted:
		lx.advance(1)
		b.literal(lx.lexANSIC(), true, pos)
	case next == '"' && !quoted:
		lx.advance(1) // $"…" is a translatable string: read as "…"
		lx.lexDoubleQuoted(b)
	case next == '(' && lx.at(2) == '(':
		b.add(lx.skipArithmeticExpansion())
	case next == '(':
		p := lx.skipCommandLike(2, "command substitution $(…)")
		p.quoted = quoted
		b.add(p)
	case next == '{':
		p := lx.lexBraceParam(quoted)
		b.add(p)
	case isNameStart(next):
		lx.advance(1)
		n := 0
		for isNameChar(lx.at(n)) {
			n++
		}
		name := string(lx.data[lx.off : lx.off+n])
		lx.advance(n)
		b.add(part{kind: partParam, text: name, quoted: quoted, pos: pos})
	case isDigit(next) || strings.IndexByte(specialParams, next) >= 0:
		lx.advance(2)
		b.add(unsupportedParam(string(next), quoted, pos))
	default:
		b.literal("$", quoted, pos)
		lx.advance(1)
	}
}

// unsupportedParam describes $1, $@, $? and friends.
func unsupportedParam(name string, quoted bool, pos position) part {
	what := "special parameter $" + name
	if isDigit(name[0]) {
		what = "positional parameter $" + name
	}
	return part{kind: partUnsupported, text: "$" + name, what: what, quoted: quoted, pos: pos}
}

// lexBraceParam reads ${…}. Only ${NAME}, ${NAME:-word}, ${NAME-word},
// ${NAME:=word} and ${NAME=word} are understood; everything else is kept
// as an unsupported part.
func (lx *lexer) lexBraceParam(quoted bool) part {
	pos, startOff := lx.pos(), lx.off
	lx.enter(pos)
	defer lx.leave()
	lx.advance(2)
	unsupported := func(what string) part {
		lx.skipToBraceEnd(pos)
		return part{kind: partUnsupported, text: string(lx.data[startOff:lx.off]), what: what, quoted: quoted, pos: pos}
	}
	switch c := lx.at(0); {
	case c == '#' && lx.at(1) != '}':
		return unsupported("length expansion ${#…}")
	case c == '!':
		return unsupported("indirect expansion ${!…}")
	case isDigit(c) || strings.IndexByte(specialParams, c) >= 0:
		return unsupported("positional or special parameter ${" + string(c) + "…}")
	case !isNameStart(c):
		lx.fail(pos, "bad substitution: ${ is not followed by a variable name")
	}
	n := 0
	for isNameChar(lx.at(n)) {
		n++
	}
	name := string(lx.data[lx.off : lx.off+n])
	lx.advance(n)
	if lx.at(0) == '}' {
		lx.advance(1)
		return part{kind: partParam, text: name, quoted: quoted, pos: pos}
	}
	for _, op := range []string{":-", ":=", "-", "="} {
		if lx.hasPrefix(op) {
			lx.advance(len(op))
			arg := lx.lexBraceWord(pos, quoted)
			return part{kind: partParam, text: name, op: op, arg: arg, quoted: quoted, pos: pos}
		}
	}
	return unsupported("parameter operator in ${" + name + "…}")
}

// lexBraceWord reads the word of ${NAME:-word} up to the closing brace.
// Blanks are part of the word here.
func (lx *lexer) lexBraceWord(start position, quoted bool) []part {
	var b partsBuilder
	for {
		if lx.eof() {
			lx.fail(start, "unterminated ${: no closing } before the end of the script")
		}
		pos := lx.pos()
		switch c := lx.at(0); {
		case c == '}':
			lx.advance(1)
			b.literal("", quoted, pos)
			return b.result()
		case c == '\'' && !quoted:
			b.literal(lx.lexSingleQuoted(), true, pos)
		case c == '"':
			lx.lexDoubleQuoted(&b)
		case c == '\\' && quoted:
			lx.lexQuotedEscape(&b, pos)
		case c == '\\' || c == '$' || c == '`':
			lx.lexUnquotedChar(&b)
		default:
			b.literal(string(c), quoted, pos)
			lx.advance(1)
		}
	}
}

// skipToBraceEnd passes the rest of an unsupported ${…}, honouring quotes
// and nested braces.
func (lx *lexer) skipToBraceEnd(start position) {
	lx.skipNested('{', '}', 1, start, "unterminated ${: no closing } before the end of the script")
}

// skipNested passes bytes up to and including the close that ends depth
// open brackets already passed, counting nested pairs and skipping escapes
// and quoted strings. At the end of the script it fails at start with
// the message unterminated.
func (lx *lexer) skipNested(open, close byte, depth int, start position, unterminated string) {
	for depth > 0 {
		if lx.eof() {
			lx.fail(start, "%s", unterminated)
		}
		if lx.skipEscapedOrQuoted() {
			continue
		}
		switch lx.at(0) {
		case open:
			depth++
		case close:
			depth--
		}
		lx.advance(1)
	}
}

// skipEscapedOrQuoted passes a backslash escape or a single- or
// double-quoted string starting here, and reports whether there was one.
func (lx *lexer) skipEscapedOrQuoted() bool {
	switch lx.at(0) {
	case '\\':
		lx.advance(2)
	case '\'':
		lx.lexSingleQuoted()
	case '"':
		var discard partsBuilder
		lx.lexDoubleQuoted(&discard)
	default:
		return false
	}
	return true
}

// skipCommandLike passes $(…), <(…), >(…) and NAME=(…): skip bytes of
// opener, then up to the matching ")". The text is kept for messages.
func (lx *lexer) skipCommandLike(skip int, what string) part {
	pos, startOff := lx.pos(), lx.off
	lx.enter(pos)
	defer lx.leave()
	lx.advance(skip)
	depth := 1
	for depth > 0 {
		if lx.eof() {
			lx.fail(pos, "unterminated %s: no closing ) before the end of the script", what)
		}
		if lx.skipEscapedOrQuoted() {
			continue
		}
		switch lx.at(0) {
		case '`':
			lx.skipBackquoted()
			continue
		case '$':
			if lx.at(1) == '(' || lx.at(1) == '{' {
				var discard partsBuilder
				lx.lexDollar(&discard, false)
				continue
			}
		case '(':
			depth++
		case ')':
			depth--
		}
		lx.advance(1)
	}
	return part{kind: partUnsupported, text: string(lx.data[startOff:lx.off]), what: what, pos: pos}
}

// skipBackquoted passes `…`.
func (lx *lexer) skipBackquoted() part {
	pos, startOff := lx.pos(), lx.off
	lx.advance(1)
	for {
		if lx.eof() {
			lx.fail(pos, "unterminated backquote: no closing ` before the end of the script")
		}
		switch lx.at(0) {
		case '\\':
			lx.advance(2)
			continue
		case '`':
			lx.advance(1)
			return part{kind: partUnsupported, text: string(lx.data[startOff:lx.off]), what: "command substitution `…`", pos: pos}
		}
		lx.advance(1)
	}
}

// skipArithmeticExpansion passes $((…)).
func (lx *lexer) skipArithmeticExpansion() part {
	pos, startOff := lx.pos(), lx.off
	lx.advance(1)
	lx.skipArithmetic()
	return part{kind: partUnsupported, text: string(lx.data[startOff:lx.off]), what: "arithmetic expansion $((…))", pos: pos}
}

// skipArithmetic passes ((…)) up to the matching "))".
func (lx *lexer) skipArithmetic() {
	pos := lx.pos()
	lx.advance(2)
	lx.skipNested('(', ')', 2, pos, "unterminated arithmetic ((: no closing )) before the end of the script")
}

// lexANSIC reads $'…' (the "$" already passed) and returns its value.
func (lx *lexer) lexANSIC() string {
	start := lx.pos()
	lx.advance(1)
	var b strings.Builder
	for {
		if lx.eof() {
			lx.fail(start, "unterminated $'…' string")
		}
		c := lx.at(0)
		if c == '\'' {
			lx.advance(1)
			return b.String()
		}
		if c != '\\' || lx.off+1 >= len(lx.data) {
			b.WriteByte(c)
			lx.advance(1)
			continue
		}
		lx.advance(1)
		lx.ansiEscape(&b)
	}
}

// ansiEscapes maps the single-letter escapes of $'…'.
var ansiEscapes = map[byte]string{
	'n': "\n", 't': "\t", 'r': "\r", 'a': "\a", 'b': "\b", 'f': "\f", 'v': "\v",
	'e': "\x1b", 'E': "\x1b", '\\': `\`, '\'': "'", '"': `"`, '?': "?",
}

// ansiEscape decodes the escape after a backslash in $'…'.
func (lx *lexer) ansiEscape(b *strings.Builder) {
	c := lx.at(0)
	if s, ok := ansiEscapes[c]; ok {
		b.WriteString(s)
		lx.advance(1)
		return
	}
	digits, base, maxLen := "01234567", 8, 3
	if c == 'x' {
		lx.advance(1)
		digits, base, maxLen = "0123456789abcdefABCDEF", 16, 2
	}
	n := 0
	for n < maxLen && strings.IndexByte(digits, lx.at(n)) >= 0 && lx.off+n < len(lx.data) {
		n++
	}
	if n == 0 {
		if base == 16 {
			b.WriteString(`\x`)
			return
		}
		b.WriteByte('\\')
		return
	}
	v, _ := strconv.ParseUint(string(lx.data[lx.off:lx.off+n]), base, 16)
	b.WriteByte(byte(v))
	lx.advance(n)
}
