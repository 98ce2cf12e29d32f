package redact

import (
	"bytes"
	"net/url"
	"strconv"
	"unicode/utf8"
)

// maxViewLevels is how many levels of JSON string escaping, and of
// percent-encoding, are undone ("{\"password\":\"x\"}" inside a JSON
// string inside another; a presigned URL in the query of another URL).
const maxViewLevels = 2

// views finds secrets hidden by escaping: a line is unescaped as a JSON
// string (\" \/ \\ \n \uXXXX) and percent-decoded, each up to two
// levels; each view is redacted on its own, and every value masked in a
// view is masked in the line, raw or escaped the same way.
func (s *stream) views(line []byte, n int) []byte {
	if !s.hasViews(line) {
		return line
	}
	for _, v := range viewValues(line, s.depth) {
		s.add(v.rule, n, v.field)
		s.masked(v.rule, v.field, v.value)
		line = maskForms(line, v.value)
	}
	return line
}

// viewsClean masks a redacted line whole when one of its views still
// shows a secret (escaped in a way the line's own rules and maskForms do
// not reproduce): nothing found in a view survives.
func (s *stream) viewsClean(line []byte, n int) []byte {
	if !s.hasViews(line) {
		return line
	}
	if left := viewValues(line, s.depth); len(left) > 0 {
		s.add(left[0].rule, n, left[0].field)
		return maskWhole(line)
	}
	return line
}

func (s *stream) hasViews(line []byte) bool {
	return !s.noViews && (bytes.IndexByte(line, '\\') >= 0 || hasPercentEscape(line))
}

// viewValues returns the values masked in the escaped views of line.
func viewValues(line []byte, depth int) []maskedValue {
	var out []maskedValue
	view := line
	for level := 0; level < maxViewLevels && bytes.IndexByte(view, '\\') >= 0; level++ {
		view = jsonUnescape(view)
		out = append(out, scanView(view, depth)...)
	}
	view = line
	for level := 0; level < maxViewLevels && hasPercentEscape(view); level++ {
		view = percentDecode(view)
		out = append(out, scanView(view, depth)...)
	}
	return out
}

// scanView redacts a view without views of its own and returns the values
// it masked.
func scanView(view []byte, depth int) []maskedValue {
	var out bytes.Buffer
	s := newStream(&out, depth, true)
	s.collect, s.noViews = true, true
	for len(view) > 0 {
		line := view
		if i := bytes.IndexByte(view, '\n'); i >= 0 {
			line = view[:i+1]
		}
		view = view[len(line):]
		s.feed(line)
	}
	s.finish()
	return s.values
}

// maskForms masks every occurrence of v in line: raw, JSON-escaped once
// and twice, and percent-encoded once and twice.
func maskForms(line, v []byte) []byte {
	if len(v) < 3 || isMask(v) {
		return line
	}
	once := jsonEscape(v)
	query, path := url.QueryEscape(string(v)), url.PathEscape(string(v))
	forms := [][]byte{v, once, jsonEscape(once), []byte(query), []byte(path),
		[]byte(url.QueryEscape(query)), []byte(url.PathEscape(path))}
	for _, f := range forms {
		line = bytes.ReplaceAll(line, f, []byte(Mask))
	}
	return line
}

// jsonUnescape undoes JSON string escapes; an unknown escape keeps the
// character after the backslash, so every pass removes backslashes.
func jsonUnescape(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 == len(b) {
			out = append(out, b[i])
			continue
		}
		i++
		switch c := b[i]; c {
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r', 'b', 'f':
			out = append(out, ' ')
		case 'u':
			r, ok := hex4(b[i+1:])
			if !ok {
				out = append(out, c)
				continue
			}
			out = utf8.AppendRune(out, r)
			i += 4
		default:
			out = append(out, c)
		}
	}
	return out
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(v), err == nil
}

// jsonEscape escapes v as inside a JSON string ('/' as "\/", as some
// encoders write it).
func jsonEscape(v []byte) []byte {
	var out []byte
	for _, c := range v {
		switch c {
		case '"', '\\', '/':
			out = append(out, '\\', c)
		default:
			out = append(out, c)
		}
	}
	return out
}

// hasPercentEscape reports whether b holds a %XX escape.
func hasPercentEscape(b []byte) bool {
	for i := bytes.IndexByte(b, '%'); i >= 0 && i+2 < len(b); {
		if isHexDigit(b[i+1]) && isHexDigit(b[i+2]) {
			return true
		}
		next := bytes.IndexByte(b[i+1:], '%')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

// percentDecode undoes %XX escapes, leaving anything else as it is.
func percentDecode(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '%' && i+2 < len(b) && isHexDigit(b[i+1]) && isHexDigit(b[i+2]) {
			v, _ := strconv.ParseUint(string(b[i+1:i+3]), 16, 8)
			out = append(out, byte(v))
			i += 2
			continue
		}
		out = append(out, b[i])
	}
	return out
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
