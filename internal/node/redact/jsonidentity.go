package redact

import "bytes"

// identityKey is the NodeConfig field whose whole content is masked.
const identityKey = "identity"

var quotedIdentity = []byte(`"` + identityKey + `"`)

// jsonIdentity masks every string value inside JSON objects that are the
// value of an "identity" key (config caches, `config dump -o json`, JSON
// user data), however they are laid out over lines. Keys stay, so the
// masked object still shows its shape.
type jsonIdentity struct {
	// pending is 1 after the key, 2 after its colon (the object not open yet).
	pending int
	// depth is the nesting inside the identity object; 0 outside.
	depth int
	// inString is set when a string value runs past the end of a line.
	inString bool
	lastKey  string
}

// line masks this line's part of identity objects.
func (j *jsonIdentity) line(r *redactor, line []byte, n int) []byte {
	if j.depth == 0 && j.pending == 0 && !bytes.Contains(line, quotedIdentity) {
		return line
	}
	var out []byte
	i := 0
	for i < len(line) {
		if j.depth == 0 {
			var copied []byte
			copied, i = j.seek(line, i)
			out = append(out, copied...)
			continue
		}
		var part []byte
		part, i = j.inside(r, line, i, n)
		out = append(out, part...)
	}
	return out
}

// seek copies line from i up to and including the '{' that opens an
// identity object (or to the end of the line), and returns where it
// stopped.
func (j *jsonIdentity) seek(line []byte, i int) ([]byte, int) {
	start := i
	for i < len(line) {
		switch {
		case j.pending == 0:
			k := bytes.Index(line[i:], quotedIdentity)
			if k < 0 {
				return line[start:], len(line)
			}
			i += k + len(quotedIdentity)
			j.pending = 1
		case line[i] == ' ' || line[i] == '\t' || line[i] == '\r':
			i++
		case j.pending == 1 && line[i] == ':':
			j.pending, i = 2, i+1
		case j.pending == 2 && line[i] == '{':
			j.pending, j.depth, j.lastKey = 0, 1, ""
			return line[start : i+1], i + 1
		default:
			j.pending = 0
		}
	}
	return line[start:], i
}

// inside copies one token of an identity object from line[i], masking a
// string value, and returns where it stopped.
func (j *jsonIdentity) inside(r *redactor, line []byte, i, n int) ([]byte, int) {
	if j.inString {
		end, closed := stringRest(line, i)
		j.inString = !closed
		return j.maskString(r, line[i:end], closed, n), end
	}
	switch c := line[i]; c {
	case '{', '[':
		j.depth++
	case '}', ']':
		j.depth--
	case '"':
		end, closed := stringEnd(line, i)
		next := skipSpace(line, end)
		if closed && next < len(line) && line[next] == ':' {
			j.lastKey = string(line[i+1 : end-1])
			return line[i:end], end
		}
		j.inString = !closed
		return append([]byte{'"'}, j.maskString(r, line[i+1:end], closed, n)...), end
	case ',', ':', ' ', '\t', '\r':
	default:
		return j.maskBare(r, line, i, n)
	}
	return line[i : i+1], i + 1
}

// maskBare masks a bare token inside an identity object (a number, or
// text that a broken or cut line puts outside its quotes): true, false
// and null stay.
func (j *jsonIdentity) maskBare(r *redactor, line []byte, i, n int) ([]byte, int) {
	end := i
	for end < len(line) && bytes.IndexByte([]byte("{}[],:\" \t\r"), line[end]) < 0 {
		end++
	}
	tok := line[i:end]
	switch string(tok) {
	case "true", "false", "null", Mask:
		return tok, end
	}
	r.add(RuleIdentity, n, identityKey+"."+j.lastKey)
	r.masked(RuleIdentity, identityKey+"."+j.lastKey, tok)
	return []byte(Mask), end
}

// maskString masks the content of a string value (s runs to its closing
// quote when closed).
func (j *jsonIdentity) maskString(r *redactor, s []byte, closed bool, n int) []byte {
	content := s
	if closed {
		content = s[:len(s)-1]
	}
	if len(content) == 0 || isMask(content) {
		return s
	}
	r.add(RuleIdentity, n, identityKey+"."+j.lastKey)
	r.masked(RuleIdentity, identityKey+"."+j.lastKey, content)
	if closed {
		return []byte(Mask + `"`)
	}
	return []byte(Mask)
}

// stringRest returns the end of a string that started on an earlier
// line: just past its closing quote, or the end of the line.
func stringRest(line []byte, i int) (int, bool) {
	for ; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return len(line), false
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the offset just past the closing quote of the JSON
// string that opens at data[i], or len(data) and false when it is not
// closed.
func stringEnd(data []byte, i int) (int, bool) {
	return stringRest(data, i+1)
}
