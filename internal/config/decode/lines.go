package decode

import (
	"bytes"
	"unicode/utf8"
)

// lineIndex maps the YAML parser's line and column numbers to the input's.
//
// The parser (a port of libyaml) also breaks lines at a lone CR, at NEL
// (U+0085), LS (U+2028) and PS (U+2029); editors, grep and sed break only
// at LF (or CRLF). For input holding any of those, the parser's line
// numbers run ahead of the file's, and a problem would point past the end
// of the file. Entry i describes where the parser's line i+1 starts.
type lineIndex []lineStart

// lineStart is where one parser line starts in the input.
type lineStart struct {
	offset int // byte offset in the data
	end    int // byte offset of the line break that ends it (or len(data))
	line   int // 1-based line as editors count it (LF or CRLF)
	column int // characters before it on that editor line
}

// indexLines scans data once for the parser's line breaks.
func indexLines(data []byte) lineIndex {
	x := make(lineIndex, 1, bytes.Count(data, []byte{'\n'})+1) // lone breaks are rare
	x[0] = lineStart{end: len(data), line: 1}
	line, column := 1, 0 // where data[i] stands for an editor
	for i := 0; i < len(data); {
		width, editorBreak := 0, false
		if c := data[i]; c == '\n' || c == '\r' || c == 0xC2 || c == 0xE2 {
			width, editorBreak = lineBreak(data[i:])
		}
		if width == 0 {
			if utf8.RuneStart(data[i]) {
				column++
			}
			i++
			continue
		}
		x[len(x)-1].end = i
		i += width
		if editorBreak {
			line, column = line+1, 0
		} else {
			column++ // a lone CR, NEL, LS or PS is one character
		}
		x = append(x, lineStart{offset: i, end: len(data), line: line, column: column})
	}
	return x
}

// lineBreak reports the width of the parser line break at the start of b
// (0 when there is none) and whether editors break the line there too.
func lineBreak(b []byte) (width int, editorBreak bool) {
	switch {
	case b[0] == '\n':
		return 1, true
	case b[0] == '\r' && len(b) > 1 && b[1] == '\n':
		return 2, true
	case b[0] == '\r':
		return 1, false
	case len(b) > 1 && b[0] == 0xC2 && b[1] == 0x85: // NEL
		return 2, false
	case len(b) > 2 && b[0] == 0xE2 && b[1] == 0x80 && (b[2] == 0xA8 || b[2] == 0xA9): // LS, PS
		return 3, false
	}
	return 0, false
}

// position maps the parser's 1-based line and column to the input's. A
// line past the end (the parser names the line after the last one for an
// unexpected end of input) stays as far past the input's last line; a
// line below 1 comes back unchanged.
func (x lineIndex) position(line, column int) (int, int) {
	switch {
	case line < 1:
		return line, column
	case line > len(x):
		return x[len(x)-1].line + line - len(x), column
	}
	s := x[line-1]
	return s.line, s.column + column
}

// text is the parser's 1-based line without its line break (nil when out
// of range).
func (x lineIndex) text(data []byte, line int) []byte {
	if line < 1 || line > len(x) {
		return nil
	}
	return data[x[line-1].offset:x[line-1].end]
}
