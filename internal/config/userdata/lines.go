package userdata

import (
	"bytes"
	"unicode/utf8"
)

// textLine locates one line of a payload by byte offsets: its text is
// data[start:end] (without "\n" and without a "\r" before it) and the next
// line starts at next.
type textLine struct {
	start, end, next int
}

// splitLines cuts data into lines, tolerating both LF and CRLF endings. A
// final line without a line ending is still a line.
func splitLines(data []byte) []textLine {
	out := make([]textLine, 0, bytes.Count(data, []byte{'\n'})+1)
	for start := 0; start < len(data); {
		i := bytes.IndexByte(data[start:], '\n')
		if i < 0 {
			out = append(out, textLine{start: start, end: trimCR(data, start, len(data)), next: len(data)})
			break
		}
		end := start + i
		out = append(out, textLine{start: start, end: trimCR(data, start, end), next: end + 1})
		start = end + 1
	}
	return out
}

// trimCR moves end back over one "\r" that ends the line.
func trimCR(data []byte, start, end int) int {
	if end > start && data[end-1] == '\r' {
		return end - 1
	}
	return end
}

// isBlank reports whether b holds only ASCII white space.
func isBlank(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

func isSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '\f', '\v':
		return true
	}
	return false
}

// excerpt quotes the start of a line for messages, cut to a readable length.
func excerpt(b []byte) string {
	const max = 40
	if len(b) <= max {
		return string(b)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + "…"
}
