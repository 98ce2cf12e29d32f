package userdata

import (
	"mime"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// maxBoundaryLen is RFC 2046's limit on a boundary's length.
const maxBoundaryLen = 70

// mimeStart reports whether the payload is a MIME message and returns the
// index of its first header line. It is one when the run of header-shaped
// lines (and folded continuations) starting at the first non-blank line
// holds a MIME-Version or Content-Type field; usually that is the very first
// line, the rule Karpenter uses, but cloud-init also accepts other headers
// such as From: before them. No YAML NodeConfig, TOML, shell script or
// cloud-config has such a top-level field.
func mimeStart(data []byte, lines []textLine) (int, bool) {
	first := -1
	for i, l := range lines {
		text := data[l.start:l.end]
		if first < 0 {
			if isBlank(text) {
				continue
			}
			first = i
		} else if isBlank(text) {
			break
		} else if text[0] == ' ' || text[0] == '\t' {
			continue
		}
		name, _, ok := parseHeaderLine(text)
		if !ok {
			break
		}
		if name == "mime-version" || name == "content-type" {
			return first, true
		}
	}
	return 0, false
}

// mimeSplitter splits one MIME message, collecting documents and problems.
type mimeSplitter struct {
	src   diag.Source
	data  []byte
	lines []textLine
	docs  []Document
	probs diag.List
	// decodedLeft is how many more bytes decoding parts may produce.
	decodedLeft int
	// stopped is set once a limit was reached (and reported): the
	// documents found so far are kept, the rest is not read.
	stopped bool
	// unquotedBoundary is the line of a boundary parameter recovered
	// although it is not valid MIME syntax (0: none).
	unquotedBoundary int
}

// splitMIME splits the MIME message whose header block starts at line
// index first; decoding its parts may produce at most decodedLeft bytes.
func splitMIME(src diag.Source, data []byte, lines []textLine, first, decodedLeft int) ([]Document, diag.List) {
	s := &mimeSplitter{src: src, data: data, lines: lines, decodedLeft: decodedLeft}
	s.message(first)
	s.refuseUnreadableForNodeadm()
	return s.docs, s.probs
}

// refuseUnreadableForNodeadm turns the recovered unquoted boundary into an
// error when the message carries NodeConfig parts: Go's MIME reader cannot
// read the boundary, so nodeadm refuses such user data and an AL2023 node
// never joins with it. Without NodeConfig parts (AL2 user data, which
// cloud-init reads leniently) it stays a warning.
func (s *mimeSplitter) refuseUnreadableForNodeadm() {
	if s.unquotedBoundary == 0 {
		return
	}
	for _, d := range s.docs {
		if d.Format != FormatNodeConfig {
			continue
		}
		for i := range s.probs {
			if p := &s.probs[i]; p.Severity == diag.SeverityWarning && p.Position.Line == s.unquotedBoundary && strings.HasPrefix(p.Message, "boundary parameter") {
				p.Severity = diag.SeverityError
				p.Message += "; nodeadm cannot read this message (Go's MIME reader refuses the boundary, and nodeadm then reads the whole user data as one YAML document and fails), so a NodeConfig in it is refused"
			}
		}
		return
	}
}

func (s *mimeSplitter) errorf(src diag.Source, line int, format string, args ...any) {
	s.probs.Errorf(src, "", diag.Position{Line: line}, format, args...)
}

func (s *mimeSplitter) warnf(src diag.Source, line int, format string, args ...any) {
	s.probs.Warnf(src, "", diag.Position{Line: line}, format, args...)
}

// text returns line i without its line ending.
func (s *mimeSplitter) text(i int) []byte {
	return s.data[s.lines[i].start:s.lines[i].end]
}

// bytesBetween returns the bytes of lines [from, to), line endings included.
func (s *mimeSplitter) bytesBetween(from, to int) []byte {
	if from >= to || from >= len(s.lines) {
		return []byte{}
	}
	end := len(s.data)
	if to < len(s.lines) {
		end = s.lines[to].start
	}
	return s.data[s.lines[from].start:end]
}

// message reads the top-level header block and dispatches on its type.
func (s *mimeSplitter) message(first int) {
	if first > 0 {
		s.warnf(s.src, 1, "%d blank line(s) before the MIME headers at line %d: cloud-init and nodeadm do not read such user data as MIME; remove them", first, first+1)
	}
	hb, fault := readHeaderBlock(s.data, s.lines, first, len(s.lines), nil)
	if fault != nil {
		s.topHeaderFault(first, fault)
		return
	}
	ct := hb.get("content-type")
	if ct == nil {
		s.warnf(s.src, first+1, "MIME headers at line %d have no Content-Type header; the body is read as text/plain (RFC 2045)", first+1)
		s.singleBody(hb, "text/plain")
		return
	}
	media, params, paramErr, ok := s.contentType(s.src, ct, "MIME message")
	if !ok {
		return
	}
	if !strings.HasPrefix(media, "multipart/") {
		s.singleBody(hb, media)
		return
	}
	boundary, ok := s.boundary(ct, media, params, paramErr)
	if !ok {
		return
	}
	s.multipartBody(hb.body, boundary, ct.line)
}

// topHeaderFault reports a top-level header block that is not ended by a
// blank line.
func (s *mimeSplitter) topHeaderFault(first int, f *headerFault) {
	switch f.kind {
	case faultDelimiter:
		s.errorf(s.src, f.line, "MIME header block (line %d) is not followed by a blank line: line %d %q starts a part; insert an empty line after the headers", first+1, f.line, excerpt(f.text))
	case faultFold:
		s.errorf(s.src, f.line, "line %d %q is indented (a folded header line) but no header precedes it", f.line, excerpt(f.text))
	case faultEnd:
		s.errorf(s.src, f.line, "MIME header block (line %d) is not followed by a blank line and a body: the data ends at line %d", first+1, f.line)
	default:
		s.errorf(s.src, f.line, "line %d %q is not a MIME header, and no blank line ends the header block that starts at line %d", f.line, excerpt(f.text), first+1)
	}
}

// contentType parses a Content-Type field. paramErr reports parameters that
// are not valid MIME syntax (the media type itself was readable). ok is
// false, with an error recorded, when no media type could be read.
func (s *mimeSplitter) contentType(src diag.Source, f *headerField, what string) (media string, params map[string]string, paramErr, ok bool) {
	media, params, err := mime.ParseMediaType(f.value)
	switch {
	case err == nil:
		return media, params, false, true
	case media != "":
		return media, params, true, true
	}
	s.errorf(src, f.line, "%s: invalid Content-Type %q at line %d: %v", what, excerpt([]byte(f.value)), f.line, err)
	return "", nil, false, false
}

// boundary returns the multipart boundary declared by ct, recovering an
// unquoted boundary with special characters (boundary=//) with a warning.
func (s *mimeSplitter) boundary(ct *headerField, media string, params map[string]string, paramErr bool) (string, bool) {
	b, found := params["boundary"]
	if !found && paramErr {
		if b, found = rawParam(ct.value, "boundary"); found {
			s.warnf(s.src, ct.line, "boundary parameter at line %d is not valid MIME syntax; quote it: boundary=%q", ct.line, b)
			s.unquotedBoundary = ct.line
		}
	}
	switch {
	case !found:
		s.errorf(s.src, ct.line, "Content-Type %s at line %d has no boundary= parameter; add one, e.g. boundary=\"//\"", media, ct.line)
		return "", false
	case b == "":
		s.errorf(s.src, ct.line, "Content-Type %s at line %d has an empty boundary= parameter", media, ct.line)
		return "", false
	case len(b) > maxBoundaryLen:
		s.warnf(s.src, ct.line, "boundary at line %d is %d characters long; RFC 2046 allows at most %d", ct.line, len(b), maxBoundaryLen)
	}
	return b, true
}

// rawParam finds name=value in a header value without MIME token rules:
// the value runs to the next ';' and loses surrounding quotes.
func rawParam(value, name string) (string, bool) {
	for _, p := range strings.Split(value, ";")[1:] {
		k, v, ok := strings.Cut(p, "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), name) {
			return strings.Trim(strings.TrimSpace(v), `"`), true
		}
	}
	return "", false
}
