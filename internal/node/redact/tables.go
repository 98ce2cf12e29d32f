package redact

import (
	"bytes"
	"slices"
)

// The AWS CLI's --output table lays a dict of scalars out in columns when
// the table fits the terminal (80 columns when its output goes to a file or
// a pipe, as in logs): a header row of names between two borders, then
// rows of values under them (`aws sts get-session-token --query
// 'Credentials.{Expiration:Expiration,SecretAccessKey:SecretAccessKey}'
// --output table`). Wider tables are turned into rows of name and value,
// which tableCells reads. A value is masked when the header of its column
// names a secret. A list is laid out one value a row, without names: a
// secret key or session token on a row after one holding an access key ID
// is masked as the rest of its key pair.

// tableColumns is what a stream knows of the table it is in.
type tableColumns struct {
	afterBorder bool // the line before was a border ("+----+----+")
	// candidate is the last row read right after a border: the header
	// row when a border follows it too.
	candidate *tableHeader
	header    *tableHeader
	// keyID is set once a row of the table held an access key ID: the
	// rows after it may hold the rest of its key pair, one value a row
	// (`--query 'AccessKey.[AccessKeyId,SecretAccessKey]' --output table`).
	keyID bool
}

// tableHeader is a header row: where its bars are, and the columns whose
// name says they hold a secret. The rows under it have as many cells (a
// value longer than its column's width would shift the bars).
type tableHeader struct {
	bars   []int
	names  [][]byte
	secret []bool
}

// isTableBorder reports whether line is a table's border ("+---+---+",
// "|+---+---+|").
func isTableBorder(line []byte) bool {
	t := bytes.TrimLeft(bytes.TrimSpace(line), "|")
	if len(t) < 3 || t[0] != '+' {
		return false
	}
	for _, c := range t {
		if c != '+' && c != '-' && c != '|' {
			return false
		}
	}
	return true
}

// columns masks, in a row under a header row, the cells whose column's
// header names a secret, and follows the table's layout. It reports a row
// that may be a header row: right after a border, every cell a name (a
// short word of letters), so that a secret name is not read as the key of
// the name after it.
func (s *stream) columns(line []byte, n int) ([]byte, bool) {
	t := &s.table
	switch {
	case line[0] != '|' && line[0] != '+' && len(bytes.TrimLeft(line, " ")) == len(line):
		*t = tableColumns{}
		return line, false
	case isTableBorder(line):
		if t.candidate != nil && !t.afterBorder {
			t.header = t.candidate
		}
		t.candidate, t.afterBorder = nil, true
		return line, false
	case !isColumnRow(line):
		*t = tableColumns{}
		return line, false
	}
	bars := barsOf(line)
	names := t.afterBorder && t.header == nil && allNames(line, bars)
	if t.keyID {
		line = s.maskSpans(line, awsSecretKeys(line), RuleAWSSecretKey, n)
		line = s.maskSpans(line, longKeyRuns(line), RuleAWSSessionToken, n)
	}
	t.keyID = t.keyID || len(awsAccessKeyIDs(line)) > 0
	if t.header != nil && len(bars) != len(t.header.bars) {
		t.header = nil
	}
	if t.header != nil {
		line = s.maskColumns(line, bars, n)
	} else if t.afterBorder {
		t.candidate = headerOf(line, bars)
	} else {
		t.candidate = nil
	}
	t.afterBorder = false
	return line, names
}

// allNames reports whether every cell of a row is a name: a word of at
// most 30 letters (secrets have digits or are longer).
func allNames(line []byte, bars []int) bool {
	for i := 0; i+1 < len(bars); i++ {
		cs, ce := cellSpan(line, bars[i]+1, bars[i+1])
		if ce-cs > 30 {
			return false
		}
		for _, c := range line[cs:ce] {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return false
			}
		}
	}
	return len(bars) >= 3
}

// maskColumns masks the cells of a row under the header's secret columns.
func (s *stream) maskColumns(line []byte, bars []int, n int) []byte {
	h := s.table.header
	for i := len(bars) - 2; i >= 0; i-- {
		if !h.secret[i] {
			continue
		}
		cs, ce := cellSpan(line, bars[i]+1, bars[i+1])
		if v := line[cs:ce]; cs < ce && !notSecretValue(v) {
			s.add(RuleSensitiveKey, n, string(h.names[i]))
			s.masked(RuleSensitiveKey, string(h.names[i]), v)
			line = splice(line, cs, ce, []byte(Mask))
		}
	}
	return line
}

// isColumnRow reports whether line is a table's row: between bars, one
// cell or more.
func isColumnRow(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	return len(t) > 0 && t[0] == '|' && bytes.Count(t, []byte{'|'}) >= 2
}

// headerOf reads a row as a header row, or nil when it names no secret.
func headerOf(line []byte, bars []int) *tableHeader {
	h := &tableHeader{bars: bars}
	for i := 0; i+1 < len(bars); i++ {
		cs, ce := cellSpan(line, bars[i]+1, bars[i+1])
		name := line[cs:ce]
		h.names = append(h.names, bytes.Clone(name))
		h.secret = append(h.secret, cs < ce && sensitiveKey(name))
	}
	if !anySet(h.secret) {
		return nil
	}
	return h
}

// anySet reports whether any is set.
func anySet(set []bool) bool { return slices.Contains(set, true) }

func barsOf(line []byte) []int {
	var bars []int
	for i, c := range line {
		if c == '|' {
			bars = append(bars, i)
		}
	}
	return bars
}

// cellSpan trims the spaces around line[s:e].
func cellSpan(line []byte, s, e int) (int, int) {
	for s < e && isSpaceByte(line[s]) {
		s++
	}
	for e > s && isSpaceByte(line[e-1]) {
		e--
	}
	return s, e
}
