package bootstrapsh

import (
	"bytes"
	"strings"
)

// heredocDelimiter is the delimiter word with quotes and backslashes
// removed, as bash compares it.
func heredocDelimiter(w word) string {
	return strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(w.raw)
}

// readHeredocBodies reads the bodies of the here-documents announced on
// the line that just ended. A body without its delimiter runs to the end of
// the script, as in bash (which only warns).
func (lx *lexer) readHeredocBodies() {
	for _, doc := range lx.pending {
		doc.bodyLine = lx.line
		var b strings.Builder
		for !lx.eof() {
			rest := lx.data[lx.off:]
			end := bytes.IndexByte(rest, '\n')
			if end < 0 {
				end = len(rest)
			}
			line := string(rest[:end])
			lx.advance(end + 1)
			if doc.stripTab {
				line = strings.TrimLeft(line, "\t")
			}
			if strings.TrimSuffix(line, "\r") == doc.delim {
				break
			}
			b.WriteString(line)
			b.WriteByte('\n')
		}
		doc.body = b.String()
	}
	lx.pending = nil
}
