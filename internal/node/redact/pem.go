package redact

import (
	"bytes"
)

const (
	pemBegin      = "-----BEGIN "
	pemEnd        = "-----END "
	pemDashes     = "-----"
	privateKeyTag = "PRIVATE KEY"
)

// maskPrivateKeys masks the body of every PEM private key block (RSA, EC,
// PKCS#8, encrypted, OpenSSH), whether its lines are real or escaped ("\n"
// inside a JSON string), keeping the BEGIN and END lines and the number of
// lines. A block without its END line (a truncated log) is masked up to the
// first line that cannot be part of it.
func maskPrivateKeys(data []byte, r *redactor) []byte {
	var out []byte
	rest := data
	done := 0 // bytes of data already copied to out
	for {
		i := bytes.Index(rest, []byte(pemBegin))
		if i < 0 {
			break
		}
		start := len(data) - len(rest) + i
		label, ok := pemLabel(data[start+len(pemBegin):])
		if !ok || !bytes.HasSuffix(label, []byte(privateKeyTag)) {
			rest = data[start+len(pemBegin):]
			continue
		}
		bodyStart := start + len(pemBegin) + len(label) + len(pemDashes)
		bodyEnd, next := pemBodyEnd(data, bodyStart, label)
		out = append(out, data[done:bodyStart]...)
		masked := maskLines(data[bodyStart:bodyEnd])
		out = append(out, masked...)
		if !bytes.Equal(masked, data[bodyStart:bodyEnd]) {
			r.add(RulePrivateKey, lineAt(data, start), string(label))
		}
		done = bodyEnd
		rest = data[next:]
	}
	if out == nil {
		return data
	}
	return append(out, data[done:]...)
}

// pemLabel returns the label after "-----BEGIN " up to the closing dashes.
func pemLabel(b []byte) ([]byte, bool) {
	end := bytes.Index(b, []byte(pemDashes))
	if end <= 0 || end > 64 {
		return nil, false
	}
	label := b[:end]
	for _, c := range label {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != ' ' {
			return nil, false
		}
	}
	return label, true
}

// pemBodyEnd returns where the body of a block starting at from ends (the
// END marker, or where a truncated block stops) and where to search next.
func pemBodyEnd(data []byte, from int, label []byte) (end, next int) {
	marker := append(append([]byte(pemEnd), label...), pemDashes...)
	if j := bytes.Index(data[from:], marker); j >= 0 {
		return from + j, from + j + len(marker)
	}
	// Truncated: the rest of the BEGIN line, then every line that looks
	// like PEM (base64 or a "Proc-Type:" style header).
	end = len(data)
	if nl := bytes.IndexByte(data[from:], '\n'); nl >= 0 {
		end = from + nl
		for end < len(data) {
			lineEnd := bytes.IndexByte(data[end+1:], '\n')
			if lineEnd < 0 {
				lineEnd = len(data) - end - 1
			}
			line := bytes.TrimSpace(data[end+1 : end+1+lineEnd])
			if len(line) == 0 || !pemBodyLine(line) {
				break
			}
			end += 1 + lineEnd
		}
	}
	return end, end
}

func pemBodyLine(line []byte) bool {
	if bytes.IndexByte(line, ':') > 0 { // RFC 1421 headers
		return true
	}
	for _, c := range line {
		if !isBase64Char(c) {
			return false
		}
	}
	return true
}

// maskLines replaces the non-blank text of every line of b with Mask,
// keeping indentation and line breaks.
func maskLines(b []byte) []byte {
	var out []byte
	for i, line := range bytes.Split(b, []byte{'\n'}) {
		if i > 0 {
			out = append(out, '\n')
		}
		trimmed := bytes.TrimLeft(line, " \t")
		if len(bytes.TrimSpace(trimmed)) == 0 || isMask(bytes.TrimSpace(trimmed)) {
			out = append(out, line...)
			continue
		}
		out = append(out, line[:len(line)-len(trimmed)]...)
		out = append(out, Mask...)
		if bytes.HasSuffix(trimmed, []byte{'\r'}) {
			out = append(out, '\r')
		}
	}
	return out
}

func isBase64Char(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == '-' || c == '_'
}
