package userdata

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
)

// delimiter kinds of a line within a multipart body.
const (
	notDelimiter = iota
	openDelimiter
	closeDelimiter
)

// delimiterKind classifies text as "--boundary" or "--boundary--", with
// trailing white space (transport padding) allowed.
func delimiterKind(text []byte, boundary string) int {
	if len(text) < 2+len(boundary) || text[0] != '-' || text[1] != '-' || string(text[2:2+len(boundary)]) != boundary {
		return notDelimiter
	}
	rest := bytes.TrimRight(text[2+len(boundary):], " \t")
	switch {
	case len(rest) == 0:
		return openDelimiter
	case string(rest) == "--":
		return closeDelimiter
	}
	return notDelimiter
}

// multipartBody splits the body starting at line index body into parts.
func (s *mimeSplitter) multipartBody(body int, boundary string, declLine int) {
	var opens []int
	closing := -1
scan:
	for i := body; i < len(s.lines); i++ {
		switch delimiterKind(s.text(i), boundary) {
		case openDelimiter:
			opens = append(opens, i)
		case closeDelimiter:
			closing = i
			break scan
		}
	}
	if len(opens) == 0 && closing < 0 {
		s.boundaryNotFound(body, boundary, declLine)
		return
	}
	firstDelim := closing
	if len(opens) > 0 {
		firstDelim = opens[0]
	}
	s.warnStray(body, firstDelim, "before the first boundary line (MIME preamble)")
	if len(opens) == 0 {
		s.warnf(s.src, closing+1, "multipart message has no parts: the closing boundary at line %d comes before any %q line", closing+1, "--"+boundary)
	}
	end := closing
	if closing < 0 {
		end = len(s.lines)
		if last := opens[len(opens)-1]; goReaderEnds(s.bytesBetween(body, len(s.lines)), boundary, len(opens)) {
			s.warnf(s.src, last+1, "closing boundary %q not found: the data ends after the %q line at line %d with no part after it; read as the end of the message, as Go's mime/multipart (and nodeadm) read it", "--"+boundary+"--", "--"+boundary, last+1)
			opens, end = opens[:len(opens)-1], last
		}
	}
	for k, open := range opens {
		if s.stopped {
			break
		}
		to := end
		if k+1 < len(opens) {
			to = opens[k+1]
		}
		s.part(k+1, open, to)
	}
	switch {
	case closing >= 0:
		s.warnStray(closing+1, len(s.lines), "after the closing boundary (MIME epilogue)")
	case end == len(s.lines):
		s.closingNotFound(opens[len(opens)-1], len(opens), boundary)
	}
}

// goReaderEnds reports whether Go's mime/multipart reader, reading body
// the way nodeadm does (every part to its end), reaches the end of the
// message without an error after opens-1 parts: a body whose last
// delimiter opens a part that never starts (the data ends on the
// delimiter line, or within that part's headers), with no closing
// delimiter. Published user data ends that way, and nodeadm boots it.
func goReaderEnds(body []byte, boundary string, opens int) bool {
	r := multipart.NewReader(bytes.NewReader(body), boundary)
	for parts := 0; ; parts++ {
		p, err := r.NextPart()
		if err == io.EOF {
			return parts == opens-1
		}
		if err != nil {
			return false
		}
		if _, err := io.Copy(io.Discard, p); err != nil {
			return false
		}
	}
}

// boundaryNotFound reports a boundary that no line uses, pointing at the
// first line that looks like a different boundary.
func (s *mimeSplitter) boundaryNotFound(body int, boundary string, declLine int) {
	hint := ""
	for i := body; i < len(s.lines); i++ {
		if t := s.text(i); bytes.HasPrefix(t, []byte("--")) {
			hint = fmt.Sprintf("; line %d is %q, but a delimiter must be \"--\" followed by exactly the declared boundary", i+1, excerpt(t))
			break
		}
	}
	s.errorf(s.src, declLine, "boundary %q declared at line %d is never used: no line %q found%s", boundary, declLine, "--"+boundary, hint)
}

// closingNotFound reports a multipart body without its closing
// delimiter, pointing at a closing delimiter of another boundary if any.
func (s *mimeSplitter) closingNotFound(lastOpen, parts int, boundary string) {
	hint := ""
	for i := len(s.lines) - 1; i > lastOpen; i-- {
		if t := bytes.TrimRight(s.text(i), " \t"); bytes.HasPrefix(t, []byte("--")) && bytes.HasSuffix(t, []byte("--")) && len(t) > 4 {
			hint = fmt.Sprintf("; line %d %q closes a different boundary", i+1, excerpt(t))
			break
		}
	}
	s.errorf(s.src, len(s.lines), "closing boundary %q not found by the end of the data (line %d): part %d (from line %d) may be truncated%s", "--"+boundary+"--", len(s.lines), parts, lastOpen+1, hint)
}

// warnStray warns about the first non-blank line in lines [from, to).
func (s *mimeSplitter) warnStray(from, to int, where string) {
	for i := from; i < to; i++ {
		if t := s.text(i); !isBlank(t) {
			s.warnf(s.src, i+1, "stray text %q at line %d %s: RFC 2046 lets readers ignore it, but it usually means a broken template", excerpt(t), i+1, where)
			return
		}
	}
}
