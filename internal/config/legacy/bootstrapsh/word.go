package bootstrapsh

import "strings"

// position is a 1-based line and byte column inside the script (not yet
// shifted by the document's first line).
type position struct{ line, col int }

// partKind says what a piece of a shell word is.
type partKind int

const (
	// partLiteral is text taken as written (quotes and escapes removed).
	partLiteral partKind = iota
	// partParam is a variable reference: $NAME, ${NAME} or ${NAME<op>word}.
	partParam
	// partUnsupported is an expansion nodeboot never performs: command
	// substitution, arithmetic, positional and special parameters, and
	// parameter operators other than the default forms.
	partUnsupported
)

// part is one piece of a word.
type part struct {
	kind partKind
	// text is the literal text, the parameter name, or for unsupported
	// parts the source text of the construct.
	text string
	// quoted is true inside double quotes (no field splitting).
	quoted bool
	// op is the parameter operator: "", ":-", "-", ":=" or "=".
	op string
	// arg is the operator's word (the default value).
	arg []part
	// what names an unsupported construct for messages.
	what string
	pos  position
}

// word is one shell word as written.
type word struct {
	parts []part
	pos   position
	// raw is the source text of the word.
	raw string
}

// isRaw reports whether the word is exactly s as written, without quotes or
// expansions: how reserved words and operators-as-words are recognised.
func (w word) isRaw(s string) bool { return w.raw == s }

// assignmentSplit recognises NAME=value and NAME+=value words: the name and
// operator must be written unquoted at the start of the word.
func (w word) assignmentSplit() (name string, appendOp bool, value []part, ok bool) {
	i := 0
	for i < len(w.raw) && isNameChar(w.raw[i]) {
		i++
	}
	if i == 0 || !isNameStart(w.raw[0]) {
		return "", false, nil, false
	}
	op := ""
	switch {
	case strings.HasPrefix(w.raw[i:], "="):
		op = "="
	case strings.HasPrefix(w.raw[i:], "+="):
		op = "+="
	default:
		return "", false, nil, false
	}
	prefix := w.raw[:i+len(op)]
	if len(w.parts) == 0 || w.parts[0].kind != partLiteral || w.parts[0].quoted || !strings.HasPrefix(w.parts[0].text, prefix) {
		return "", false, nil, false
	}
	if rest := w.parts[0].text[len(prefix):]; rest != "" {
		value = append(value, part{kind: partLiteral, text: rest, pos: w.parts[0].pos})
	}
	value = append(value, w.parts[1:]...)
	return w.raw[:i], op == "+=", value, true
}

// isName reports a valid shell variable name.
func isName(s string) bool {
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameChar(s[i]) {
			return false
		}
	}
	return true
}

func isNameStart(c byte) bool { return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }
func isNameChar(c byte) bool  { return isNameStart(c) || isDigit(c) }
func isDigit(c byte) bool     { return '0' <= c && c <= '9' }

// partsBuilder collects parts, merging adjacent literals of the same
// quoting.
type partsBuilder struct {
	parts     []part
	lit       strings.Builder
	hasLit    bool
	litQuoted bool
	litPos    position
}

func (b *partsBuilder) literal(s string, quoted bool, pos position) {
	if b.hasLit && b.litQuoted != quoted {
		b.flush()
	}
	if !b.hasLit {
		b.hasLit, b.litQuoted, b.litPos = true, quoted, pos
	}
	b.lit.WriteString(s)
}

func (b *partsBuilder) flush() {
	if b.hasLit {
		b.parts = append(b.parts, part{kind: partLiteral, text: b.lit.String(), quoted: b.litQuoted, pos: b.litPos})
		b.lit.Reset()
		b.hasLit = false
	}
}

func (b *partsBuilder) add(p part) {
	b.flush()
	b.parts = append(b.parts, p)
}

// result returns the parts collected so far.
func (b *partsBuilder) result() []part {
	b.flush()
	return b.parts
}

// excerpt shortens source text for messages.
func excerpt(s string) string {
	const limit = 60
	s = strings.ReplaceAll(s, "\n", "⏎")
	if len(s) > limit {
		return s[:limit] + "…"
	}
	return s
}
