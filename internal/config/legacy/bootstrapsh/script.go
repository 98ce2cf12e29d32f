package bootstrapsh

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"mvdan.cc/sh/v3/syntax"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// Limits on the work one script may cause: user data is untrusted, and
// the shell parser recurses once per nesting level (up to 3 KiB of stack
// each), so size and nesting are bounded before it runs.
const (
	// maxScriptSize is the largest script read for a bootstrap.sh call,
	// eight times EC2's whole user-data limit.
	maxScriptSize = 128 << 10
	// maxNestingChars bounds the characters that open a nesting level in
	// the parser: ( { [ ` and the unary operators ! ? ~. Counting them
	// all, wherever they are, is a bound on the depth that quoting cannot
	// hide; a real script has a few dozen.
	maxNestingChars = 4096
	// nestingChars are the characters maxNestingChars counts.
	nestingChars = "({[`!?~"
)

// ParseScript finds the /etc/eks/bootstrap.sh call in a shell script and
// converts it to a hub.Spec. It never runs anything: see the package
// documentation for what is understood. doc.Data is read as a shell
// script whatever doc.Format says.
func ParseScript(doc userdata.Document) (res Result, problems diag.List) {
	return ParseScriptAfter(doc, "")
}

// ParseScriptAfter is ParseScript for a script that runs after earlier
// user data patched bootstrap.sh (their Result.ExtraArgsPatch, joined):
// the call's --kubelet-extra-args value, when the call gives one, gets
// patch appended, as the patched option loop does.
func ParseScriptAfter(doc userdata.Document, patch string) (res Result, problems diag.List) {
	src := doc.Source
	src.Format = FormatName
	defer func() {
		if r := recover(); r != nil {
			res = Result{}
			problems = diag.List{}
			problems.Errorf(src, "", diag.Position{}, "internal error while reading the bootstrap.sh call (please report this): %v", r)
		}
		problems = diag.Limit(problems, src)
	}()
	if !mentionsAnything(doc.Data) {
		return Result{}, nil // not ours: it names neither bootstrap.sh nor an AL2 file
	}
	base := max(src.Line, 1)
	data, crlf := withoutCR(doc.Data)
	file, fail := parseBounded(data)
	if fail != nil {
		if !bytes.Contains(data, []byte(bootstrapPath)) {
			return Result{}, nil // not ours
		}
		problems.Errorf(src, "", diag.Position{Line: base + fail.pos.line - 1, Column: fail.pos.col},
			"the script mentions %s but %s", bootstrapPath, fail.msg)
		return Result{}, problems
	}
	in := newInterp(src, base, data)
	in.walkStmts(file.Stmts, execContext{})
	in.reportCalls()
	if len(in.calls) == 0 {
		return Result{ExtraArgsPatch: in.extraArgsPatch}, in.problems
	}
	if crlf {
		in.warnf(position{line: 1, col: 1}, "the script has CRLF (Windows) line endings: bash keeps the \\r at the end of each line (the #! line fails, and bootstrap.sh would get a cluster name ending in \\r); nodeboot reads the lines without it, but convert the file to LF endings")
	}
	first := in.calls[0]
	spec, positions, more := parseInvocation(withExtraArgsPatch(first.args, patch), first.env, src, in.at(first.pos))
	problems = append(in.problems, more...)
	sortByLine(problems)
	args := make([]string, len(first.args))
	for i, a := range first.args {
		args[i] = a.text
	}
	return Result{Found: true, Spec: spec, Positions: positions, Args: args, ExtraArgsPatch: in.extraArgsPatch}, problems
}

// withExtraArgsPatch appends patch to the value of every
// --kubelet-extra-args option of a call (bootstrap.sh keeps the last).
func withExtraArgsPatch(args []argument, patch string) []argument {
	if patch == "" {
		return args
	}
	out := slices.Clone(args)
	for i := 0; i+1 < len(out); i++ {
		if out[i].text == "--kubelet-extra-args" && !out[i+1].unknown {
			out[i+1].text += patch
			i++
		}
	}
	return out
}

// mentionsAnything reports whether a script names bootstrap.sh or one of
// the AL2 files whose edits are reported. A call of bootstrap.sh always
// names it (directly or in a variable's value), so a script that does not
// is not read at all.
func mentionsAnything(data []byte) bool {
	if bytes.Contains(data, []byte("bootstrap.sh")) {
		return true
	}
	for _, f := range al2Files {
		if bytes.Contains(data, []byte(f)) {
			return true
		}
	}
	return false
}

// withoutCR removes the "\r" of "\r\n" line endings and reports whether
// there was one. Lines and the columns before the "\r" do not move.
func withoutCR(data []byte) ([]byte, bool) {
	if !bytes.Contains(data, []byte("\r\n")) {
		return data, false
	}
	return bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), true
}

// withoutDanglingBackslash drops a backslash that ends data unescaped: a
// line continuation with nothing after it, which bash drops (mvdan.cc/sh
// reads it as a word "\"). A script often ends so: the last line of a
// multi-line bootstrap.sh call keeps its "\" and the MIME delimiter's line
// break, which belongs to the delimiter, follows.
func withoutDanglingBackslash(data []byte) []byte {
	n := len(data) - len(bytes.TrimRight(data, `\`))
	if n%2 == 1 {
		return data[:len(data)-1]
	}
	return data
}

// parseFailure is why a script could not be parsed.
type parseFailure struct {
	pos position
	msg string
}

// parseBounded checks the limits, then parses data as bash.
func parseBounded(data []byte) (*syntax.File, *parseFailure) {
	if len(data) > maxScriptSize {
		return nil, &parseFailure{pos: position{line: 1, col: 1}, msg: fmt.Sprintf(
			"is too large to read safely (%d KiB; at most %d KiB), so the call cannot be read", len(data)>>10, maxScriptSize>>10)}
	}
	if n := countNestingChars(data); n > maxNestingChars {
		return nil, &parseFailure{pos: position{line: 1, col: 1}, msg: fmt.Sprintf(
			"nests too deeply to read safely: it has %d of the characters %s, which open nesting levels (at most %d), so the call cannot be read",
			n, nestingChars, maxNestingChars)}
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(withoutDanglingBackslash(data)), "")
	if err != nil {
		var pe syntax.ParseError
		if errors.As(err, &pe) {
			return nil, &parseFailure{pos: posOf(pe.Pos), msg: "is not valid shell, so the call cannot be read: " + pe.Text}
		}
		var le syntax.LangError
		if errors.As(err, &le) {
			return nil, &parseFailure{pos: posOf(le.Pos), msg: "is not valid shell, so the call cannot be read: " + le.Feature + " is not bash"}
		}
		return nil, &parseFailure{pos: position{line: 1, col: 1}, msg: "is not valid shell, so the call cannot be read: " + err.Error()}
	}
	return file, nil
}

// countNestingChars counts the bytes of data that are in nestingChars.
func countNestingChars(data []byte) int {
	var counted [256]bool
	for i := range len(nestingChars) {
		counted[nestingChars[i]] = true
	}
	n := 0
	for _, c := range data {
		if counted[c] {
			n++
		}
	}
	return n
}
