package userdata

import (
	"bytes"
	"strings"
)

// headerField is one unfolded header field of a MIME header block.
type headerField struct {
	name  string // lower-cased
	value string
	line  int // 1-based line of the field name
}

// headerBlock is a MIME header block read from a payload.
type headerBlock struct {
	fields []headerField
	// body is the index of the first line after the blank line that ends
	// the block.
	body int
}

// get returns the first field called name (lower-case), or nil.
func (h headerBlock) get(name string) *headerField {
	for i := range h.fields {
		if h.fields[i].name == name {
			return &h.fields[i]
		}
	}
	return nil
}

// faultKind tells why a header block ended without its blank line.
type faultKind int

const (
	// faultNotHeader: a line that is neither a header field nor blank.
	faultNotHeader faultKind = iota
	// faultDelimiter: a line starting with "--", i.e. a boundary line.
	faultDelimiter
	// faultFold: a folded (indented) line before any field.
	faultFold
	// faultEnd: the data or the part ended before a blank line.
	faultEnd
)

// headerFault is the line at which a header block went wrong.
type headerFault struct {
	kind faultKind
	line int // 1-based
	text []byte
}

// readHeaderBlock reads header fields from lines[from:to] up to the first
// blank (or white-space-only) line. accept, when not nil, restricts the
// field names taken as headers; a syntactically valid field it rejects is
// reported as faultNotHeader, so that a part body glued to its headers
// (`apiVersion: …` right after `Content-Type: …`) is caught.
func readHeaderBlock(data []byte, lines []textLine, from, to int, accept func(string) bool) (headerBlock, *headerFault) {
	var hb headerBlock
	for i := from; i < to; i++ {
		text := data[lines[i].start:lines[i].end]
		switch {
		case isBlank(text):
			hb.body = i + 1
			return hb, nil
		case text[0] == ' ' || text[0] == '\t':
			if len(hb.fields) == 0 {
				return hb, &headerFault{kind: faultFold, line: i + 1, text: text}
			}
			last := &hb.fields[len(hb.fields)-1]
			last.value = strings.TrimSpace(last.value + " " + strings.TrimSpace(string(text)))
			continue
		case bytes.HasPrefix(text, []byte("--")):
			return hb, &headerFault{kind: faultDelimiter, line: i + 1, text: text}
		}
		name, value, ok := parseHeaderLine(text)
		if !ok || accept != nil && !accept(name) {
			return hb, &headerFault{kind: faultNotHeader, line: i + 1, text: text}
		}
		hb.fields = append(hb.fields, headerField{name: name, value: value, line: i + 1})
	}
	hb.body = to
	return hb, &headerFault{kind: faultEnd, line: max(to, 1)}
}

// parseHeaderLine splits `Name: value` (RFC 5322 field syntax: the name is
// printable ASCII without ':' and white space; white space before the colon
// is tolerated as in obsolete syntax) and lower-cases the name.
func parseHeaderLine(text []byte) (name, value string, ok bool) {
	colon := bytes.IndexByte(text, ':')
	if colon <= 0 {
		return "", "", false
	}
	raw := bytes.TrimRight(text[:colon], " \t")
	if len(raw) == 0 {
		return "", "", false
	}
	for _, c := range raw {
		if c <= ' ' || c > '~' {
			return "", "", false
		}
	}
	return strings.ToLower(string(raw)), strings.TrimSpace(string(text[colon+1:])), true
}

// isPartHeader accepts the header fields seen in user-data MIME parts:
// Content-*, MIME-Version, X-*, and cloud-init's Merge-Type and
// Launch-Index. Anything else right after a boundary line is far more
// likely a body line missing its blank separator than a real header.
func isPartHeader(name string) bool {
	if strings.HasPrefix(name, "content-") || strings.HasPrefix(name, "x-") {
		return true
	}
	switch name {
	case "mime-version", "merge-type", "launch-index":
		return true
	}
	return false
}
