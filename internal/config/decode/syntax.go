package decode

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	yaml2 "sigs.k8s.io/yaml/goyaml.v2"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/lazyregexp"
)

// yamlErrorLine splits "yaml: line 4: did not find expected key".
var yamlErrorLine = lazyregexp.New(`^yaml: line (\d+): (.*)$`)

// parserProblems start the messages of the YAML parser (as opposed to its
// scanner). The parser's line numbers are 0-based, the scanner's 1-based;
// see fail() in go.yaml.in/yaml/v3's yaml.go.
var parserProblems = []string{
	"did not find expected",
	"found duplicate %",
	"found incompatible YAML document",
	"found undefined tag handle",
}

// syntaxProblem turns a YAML parse error into a problem on its absolute
// line (the document start when no line is known).
//
// For scanner errors yaml.v3 names the line where the bad token starts
// (good: an unclosed quote is shown where it opens). For parser errors it
// names where the enclosing block starts, while yaml.v2 (the same libyaml
// port) names the offending token's line; so the stream is parsed again
// with yaml.v2 and its line is used when it failed with the same message.
func syntaxProblem(src diag.Source, base int, data []byte, err error) diag.Problem {
	line, msg := splitYAMLError(err)
	if isParserProblem(msg) {
		if line2, msg2 := yamlV2Error(data); msg2 == msg && line2 > 0 {
			line = line2
		}
	}
	return diag.Problem{
		Severity: diag.SeverityError,
		Source:   src,
		Position: diag.Position{Line: base + editorLine(data, max(line, 1)) - 1},
		Message:  "YAML syntax error: " + msg,
	}
}

// editorLine maps the parser's 1-based line in data to the line editors
// show.
func editorLine(data []byte, line int) int {
	line, _ = indexLines(data).position(line, 0)
	return line
}

// splitYAMLError returns the 1-based line (0 if none) and the message of a
// yaml.v2 or yaml.v3 parse error.
func splitYAMLError(err error) (int, string) {
	m := yamlErrorLine.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, strings.TrimPrefix(err.Error(), "yaml: ")
	}
	line, _ := strconv.Atoi(m[1])
	if isParserProblem(m[2]) {
		line++
	}
	return line, m[2]
}

// yamlV2Error parses data with yaml.v2 and returns its first parse error's
// line and message, or (0, "") when it parses.
func yamlV2Error(data []byte) (int, string) {
	dec := yaml2.NewDecoder(bytes.NewReader(data))
	for {
		var v any
		err := dec.Decode(&v)
		switch {
		case errors.Is(err, io.EOF):
			return 0, ""
		case err != nil:
			return splitYAMLError(err)
		}
	}
}

// isParserProblem reports whether msg comes from the YAML parser.
func isParserProblem(msg string) bool {
	for _, p := range parserProblems {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}
