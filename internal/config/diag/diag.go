// Package diag describes problems found in user input: what is wrong, in
// which field, in which source (file, MIME part and its content type) and on
// which line, so that one run of `nodeboot config check` reports everything a
// user has to fix.
package diag

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalidConfig is returned (wrapped) when user input has errors.
var ErrInvalidConfig = errors.New("invalid configuration")

// Severity tells whether a problem stops the node from being configured.
type Severity string

// Severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Source names where a document came from.
type Source struct {
	// URI is the config source, e.g. "imds://user-data" or "file:///etc/eks/nodeadm.d/10-a.yaml".
	URI string `json:"uri"`
	// Part is the 1-based MIME part number; 0 when the source is not multipart.
	Part int `json:"part,omitempty"`
	// ContentType is the MIME part's content type, when there is one.
	ContentType string `json:"contentType,omitempty"`
	// Format is what the document was read as, e.g. "NodeConfig" or "bootstrap.sh".
	Format string `json:"format,omitempty"`
	// Line is the line of the source on which this document starts (1-based; 0 = unknown).
	// When Decoded is set, lines count in the decoded text, not in the raw source.
	Line int `json:"line,omitempty"`
	// Decoded names the transport encoding that was undone to get the text
	// whose lines Line and problem positions count ("base64", "gzip",
	// "gzip+base64" for base64-wrapped gzip, "quoted-printable"); empty when
	// the lines are those of the source as stored.
	Decoded string `json:"decoded,omitempty"`
}

// String renders the source for humans:
// `imds://user-data part 2 (application/node.eks.aws)`, or with decoded
// content `imds://user-data part 2 (application/node.eks.aws, base64-decoded)`
// and `file:///x.yaml (gzip+base64-decoded)`.
func (s Source) String() string {
	var notes []string
	if s.Part > 0 && s.ContentType != "" {
		notes = append(notes, s.ContentType)
	}
	if s.Decoded != "" {
		notes = append(notes, s.Decoded+"-decoded")
	}
	var b strings.Builder
	b.WriteString(s.URI)
	if s.Part > 0 {
		fmt.Fprintf(&b, " part %d", s.Part)
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(notes, ", "))
	}
	return b.String()
}

// Position is a 1-based line and column in the whole source (not the part),
// or in the decoded text when the problem's Source.Decoded is set.
type Position struct {
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
}

// IsZero reports whether the position is unknown.
func (p Position) IsZero() bool { return p.Line == 0 }

// Problem is one finding about user input.
type Problem struct {
	Severity Severity `json:"severity"`
	Source   Source   `json:"source"`
	// Field is the field path, e.g. "spec.cluster.cidr" or "spec.kubelet.flags[2]".
	Field    string   `json:"field,omitempty"`
	Position Position `json:"position,omitempty"`
	Message  string   `json:"message"`
	// StrictOnly marks an error nodeadm does not make (an unknown field
	// in a node.eks.aws document, which it drops): config check and
	// init --strict refuse it, a boot only warns (see Relax).
	StrictOnly bool `json:"strictOnly,omitempty"`
}

// String renders the problem on one line:
// `error: imds://user-data part 2 (application/node.eks.aws) line 7:5: spec.cluster.cidr: invalid CIDR "10.0/16"`;
// for decoded content the source says so, e.g.
// `… part 2 (application/node.eks.aws, base64-decoded) line 5:7: …`.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(string(p.Severity))
	b.WriteString(": ")
	if p.Source.URI != "" {
		b.WriteString(p.Source.String())
	}
	if !p.Position.IsZero() {
		fmt.Fprintf(&b, " line %d", p.Position.Line)
		if p.Position.Column > 0 {
			fmt.Fprintf(&b, ":%d", p.Position.Column)
		}
	}
	if p.Source.URI != "" || !p.Position.IsZero() {
		b.WriteString(": ")
	}
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	if p.StrictOnly && p.Severity == SeverityError {
		b.WriteString(" " + StrictOnlyMark)
	}
	return b.String()
}

// StrictOnlyMark ends the text of an error that only `config check` and
// --strict make: nodeadm accepts the input and init boots it, warning.
const StrictOnlyMark = "[nodeadm accepts this: init only warns]"

// List is an ordered collection of problems.
type List []Problem

// Errorf appends an error-severity problem.
func (l *List) Errorf(src Source, field string, pos Position, format string, args ...any) {
	*l = append(*l, Problem{Severity: SeverityError, Source: src, Field: field, Position: pos, Message: fmt.Sprintf(format, args...)})
}

// Warnf appends a warning-severity problem.
func (l *List) Warnf(src Source, field string, pos Position, format string, args ...any) {
	*l = append(*l, Problem{Severity: SeverityWarning, Source: src, Field: field, Position: pos, Message: fmt.Sprintf(format, args...)})
}

// HasErrors reports whether any problem has error severity.
func (l List) HasErrors() bool {
	for _, p := range l {
		if p.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Filter returns the problems of one severity.
func (l List) Filter(s Severity) List {
	var out List
	for _, p := range l {
		if p.Severity == s {
			out = append(out, p)
		}
	}
	return out
}

// Err returns nil when there are no errors, otherwise an error wrapping
// ErrInvalidConfig whose message lists every error, one per line.
func (l List) Err() error {
	errs := l.Filter(SeverityError)
	if len(errs) == 0 {
		return nil
	}
	lines := make([]string, len(errs))
	for i, p := range errs {
		lines[i] = p.String()
	}
	return &ListError{Problems: errs, msg: fmt.Sprintf("%d problem(s):\n%s", len(errs), strings.Join(lines, "\n"))}
}

// ListError is the error form of a problem list.
type ListError struct {
	Problems List
	msg      string
}

// Error implements error.
func (e *ListError) Error() string { return e.msg }

// Unwrap makes errors.Is(err, ErrInvalidConfig) true.
func (e *ListError) Unwrap() error { return ErrInvalidConfig }
