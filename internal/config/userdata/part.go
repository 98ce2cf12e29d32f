package userdata

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/quotedprintable"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// part reads part n, whose "--boundary" line has index open and which runs
// up to (not including) line index to.
func (s *mimeSplitter) part(n, open, to int) {
	src := s.src
	src.Part = n
	from := open + 1
	if from >= to {
		s.warnf(src, open+1, "part %d (line %d) is empty: no headers and no body; skipped", n, open+1)
		return
	}
	hb, fault := readHeaderBlock(s.data, s.lines, from, to, isPartHeader)
	if fault != nil {
		if fault.kind != faultEnd || len(hb.fields) == 0 {
			s.partHeaderFault(src, n, open, hb, fault)
			return
		}
		s.warnf(src, open+1, "part %d (line %d) has headers but no body", n, open+1)
	}
	media := "text/plain"
	var params map[string]string
	if ct := hb.get("content-type"); ct == nil {
		s.warnf(src, open+1, "part %d (line %d) has no Content-Type header; read as text/plain (RFC 2045)", n, open+1)
	} else {
		var paramErr, ok bool
		if media, params, paramErr, ok = s.contentType(src, ct, fmt.Sprintf("part %d", n)); !ok {
			return
		}
		if paramErr {
			s.warnf(src, ct.line, "part %d: Content-Type parameters at line %d are not valid MIME syntax and are ignored", n, ct.line)
		}
	}
	src.ContentType = media
	body := s.bytesBetween(hb.body, to)
	if to < len(s.lines) {
		body = trimDelimiterBreak(body)
	}
	s.emit(src, fmt.Sprintf("part %d", n), hb, body, kept{boundary: params["boundary"], filename: partFilename(hb, params)})
}

// trimDelimiterBreak drops the line break that ends body where a delimiter
// line follows: RFC 2046 makes it part of the delimiter, and every MIME
// reader (Go's mime/multipart, Python's email package in cloud-init) drops
// it. It is CR LF, LF or, for Python, a lone CR.
func trimDelimiterBreak(body []byte) []byte {
	switch {
	case bytes.HasSuffix(body, []byte("\r\n")):
		return body[:len(body)-2]
	case bytes.HasSuffix(body, []byte("\n")), bytes.HasSuffix(body, []byte("\r")):
		return body[:len(body)-1]
	}
	return body
}

// singleBody reads the body of a MIME message that is not multipart as one
// document (Part 0).
func (s *mimeSplitter) singleBody(hb headerBlock, media string) {
	src := s.src
	src.ContentType = media
	s.emit(src, "MIME body", hb, s.bytesBetween(hb.body, len(s.lines)), kept{filename: partFilename(hb, nil)})
}

// kept is what a document keeps of its part's headers.
type kept struct {
	// boundary is the part's boundary parameter, kept with a nested
	// multipart.
	boundary string
	// filename is the name cloud-init gives the part's file.
	filename string
}

// emit decodes a body and appends it as a document, with k; what names it
// in messages ("part 2", "MIME body").
func (s *mimeSplitter) emit(src diag.Source, what string, hb headerBlock, body []byte, k kept) {
	line := hb.body + 1
	media := src.ContentType
	if strings.HasPrefix(media, "multipart/") {
		s.warnf(src, line, "%s (body at line %d) is a nested %s; nested multipart is not descended, listed as %q", what, line, media, FormatOther)
		if s.append(src, FormatOther, line, body) {
			s.docs[len(s.docs)-1].Boundary = k.boundary
		}
		return
	}
	data, undone, ok := s.decodeBody(src, what, hb, body, line)
	if !ok {
		return
	}

	format := formatOfMediaType(media)
	if media == "text/plain" {
		format = sniffPlainText(data)
	}
	if undone != "" {
		// Lines of decoded text match no line of the payload: positions
		// count from the start of the decoded body instead.
		src.Decoded, line = undone, 1
	}
	if s.append(src, format, line, data) {
		s.docs[len(s.docs)-1].Filename = k.filename
	}
}

// partFilename is the name cloud-init gives a part's file, as Python's
// Message.get_filename reads it: the filename parameter of hb's
// Content-Disposition, else the name parameter of its Content-Type
// (ctParams, as the part's Content-Type was parsed; nil when there is none
// or its parameters are not valid MIME syntax); a parameter that is not
// valid MIME syntax (an unquoted filename=a/b.sh) is read as Python reads it.
func partFilename(hb headerBlock, ctParams map[string]string) string {
	if name, ok := headerParam(hb.get("content-disposition"), "filename"); ok {
		return name
	}
	if ctParams != nil {
		return ctParams["name"]
	}
	name, _ := headerParam(hb.get("content-type"), "name")
	return name
}

// headerParam returns the parameter name of f's value (f may be nil),
// read with rawParam where the value is not valid MIME syntax.
func headerParam(f *headerField, name string) (string, bool) {
	if f == nil {
		return "", false
	}
	if _, params, err := mime.ParseMediaType(f.value); err == nil {
		v, ok := params[name]
		return v, ok
	}
	return rawParam(f.value, name)
}

// append adds a document, reporting whether it did (false past
// maxDocuments).
func (s *mimeSplitter) append(src diag.Source, format Format, line int, data []byte) bool {
	if len(s.docs) >= maxDocuments {
		s.stopped = true
		s.errorf(src, line, "the user data holds more than %d documents (MIME parts); nodeboot reads at most %d", maxDocuments, maxDocuments)
		return false
	}
	src.Format = string(format)
	src.Line = line
	s.docs = append(s.docs, Document{Source: src, Format: format, Data: data})
	return true
}

// decodeBody undoes Content-Transfer-Encoding, then, like nodeadm, sniffs
// base64 (unless the part already declared base64) and gunzips by magic.
// It returns the body and the name of every encoding undone, innermost
// first ("" when the body was used as written).
func (s *mimeSplitter) decodeBody(src diag.Source, what string, hb headerBlock, body []byte, line int) ([]byte, string, bool) {
	declared := ""
	if cte := hb.get("content-transfer-encoding"); cte != nil {
		var err error
		switch strings.ToLower(cte.value) {
		case "", "7bit", "8bit", "binary":
		case "base64":
			declared = encodingBase64
			body, err = decodeBase64Body(body)
		case "quoted-printable":
			declared = encodingQuotedPrintable
			body, err = io.ReadAll(quotedprintable.NewReader(bytes.NewReader(body)))
		default:
			s.warnf(src, cte.line, "%s: unknown Content-Transfer-Encoding %q at line %d; body read as is", what, cte.value, cte.line)
		}
		if err != nil {
			s.errorf(src, line, "%s: Content-Transfer-Encoding %s (line %d), but the body starting at line %d does not decode: %v", what, cte.value, cte.line, line, err)
			return nil, "", false
		}
	}
	out, undone, err := undoTransport(body, declared != encodingBase64, s.decodedLeft)
	switch {
	case errors.Is(err, errInflateLimit) && s.decodedLeft < maxInflatedSize, err == nil && (declared != "" || undone != "") && len(out) > s.decodedLeft:
		s.errorf(src, line, "%s (body at line %d): the parts of this user data decode to more than %d MiB in total; the rest is not read", what, line, maxDecodedTotal>>20)
		s.stopped = true
		return nil, "", false
	case err != nil:
		s.errorf(src, line, "%s (body at line %d): %s", what, line, errorText(err))
		return nil, "", false
	}
	if declared != "" || undone != "" {
		s.decodedLeft -= len(out)
	}
	return out, wrappedIn(undone, declared), true
}

// partHeaderFault reports part headers that are not ended by a blank line.
func (s *mimeSplitter) partHeaderFault(src diag.Source, n, open int, hb headerBlock, f *headerFault) {
	switch {
	case f.kind == faultFold:
		s.errorf(src, f.line, "part %d (line %d): line %d %q is indented (a folded header line) but no header precedes it", n, open+1, f.line, excerpt(f.text))
	case len(hb.fields) > 0:
		s.errorf(src, f.line, "part %d (line %d): headers are not followed by a blank line: line %d %q is not a MIME header; insert an empty line between the part headers and the body", n, open+1, f.line, excerpt(f.text))
	default:
		s.errorf(src, f.line, "part %d (line %d) has no headers and no blank line: it starts with %q at line %d; add a Content-Type header and an empty line", n, open+1, excerpt(f.text), f.line)
	}
}
