package redact

import "bytes"

// identityKey is the NodeConfig field whose whole content is masked.
const identityKey = "identity"

// maskJSONIdentity masks every string value inside JSON objects that are
// the value of an "identity" key (config caches, `config dump -o json`,
// JSON user data), however they are laid out. Keys stay, so the masked
// object still shows its shape.
func maskJSONIdentity(data []byte, r *redactor) []byte {
	quoted := []byte(`"` + identityKey + `"`)
	var out []byte
	done, from := 0, 0
	for {
		i := bytes.Index(data[from:], quoted)
		if i < 0 {
			break
		}
		at := from + i + len(quoted)
		obj, ok := objectAfterColon(data, at)
		if !ok {
			from = at
			continue
		}
		out = append(out, data[done:obj]...)
		masked, end := maskObjectStrings(data, obj, r)
		out = append(out, masked...)
		done, from = end, end
	}
	if out == nil {
		return data
	}
	return append(out, data[done:]...)
}

// objectAfterColon returns the offset of the '{' that follows ':' after
// the key that ends at i.
func objectAfterColon(data []byte, i int) (int, bool) {
	i = skipSpace(data, i)
	if i >= len(data) || data[i] != ':' {
		return 0, false
	}
	i = skipSpace(data, i+1)
	return i, i < len(data) && data[i] == '{'
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// maskObjectStrings copies the JSON object starting at data[start] == '{'
// with every string value masked, and returns where it ended. Malformed or
// truncated JSON ends the object at the end of the data.
func maskObjectStrings(data []byte, start int, r *redactor) ([]byte, int) {
	var out []byte
	depth, lastKey := 0, ""
	i := start
	for i < len(data) {
		c := data[i]
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			end, closed := stringEnd(data, i)
			next := skipSpace(data, end)
			isKey := closed && next < len(data) && data[next] == ':'
			content := data[i+1 : end]
			if closed {
				content = data[i+1 : end-1]
			}
			switch {
			case isKey:
				lastKey = string(content)
				out = append(out, data[i:end]...)
			case len(content) == 0 || isMask(content):
				out = append(out, data[i:end]...)
			default:
				out = append(out, '"')
				out = append(out, Mask...)
				out = append(out, '"')
				// Keep escaped or raw line breaks out of the count: a JSON
				// string holds none, a malformed one may.
				out = append(out, bytes.Repeat([]byte{'\n'}, bytes.Count(content, []byte{'\n'}))...)
				r.add(RuleIdentity, lineAt(data, i), identityKey+"."+lastKey)
			}
			i = end
			continue
		}
		out = append(out, c)
		i++
		if depth == 0 {
			return out, i
		}
	}
	return out, i
}

// stringEnd returns the offset just past the closing quote of the JSON
// string that opens at data[i], or len(data) and false when it is not
// closed.
func stringEnd(data []byte, i int) (int, bool) {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return len(data), false
}
