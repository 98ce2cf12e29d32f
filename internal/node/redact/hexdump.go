package redact

import "bytes"

// Hex dumps show data 16 bytes a line, twice: as hex digits and as text,
// so a secret in the data is cut across lines and shows in both columns.
// A run of dump lines is read as the bytes it shows, those are redacted as
// any text is, and each masked byte is masked in both columns ("**" among
// the hex digits, "*" in the text), so that the layout and the bytes
// around stay readable. The formats are those written to logs
// and consoles (parsed by hand: no library reads a dump back):
//
//	curl --trace:        "0050: 41 6d 7a 2d ... 6f 6b Amz-Security-Tok"
//	hexdump -C, Go's encoding/hex.Dump:
//	                     "00000010  63 65 73 73 ... 41 4b  |cess_key_id = AK|"
//	xxd:                 "00000010: 6365 7373 ... 414b  cess_key_id = AK"
//
// A line is taken for a dump line only when writing its bytes back in its
// format gives the line again, byte for byte.
type dumpFormat int

const (
	dumpCurl dumpFormat = iota + 1
	dumpHexdumpC
	dumpXXD
)

// dumpWidth is how many bytes a dump line shows.
const dumpWidth = 16

// dumpLine is one parsed line of a hex dump.
type dumpLine struct {
	format dumpFormat
	offset uint64
	digits []byte // the offset as written
	data   []byte
	// masked marks the bytes shown masked ("**"): redacting a dump again
	// reads it as a dump again.
	masked []bool
}

// parseDumpLine parses body as a line of a hex dump in any known format.
func parseDumpLine(body []byte) (dumpLine, bool) {
	digits, off, ok := dumpOffset(body)
	if !ok {
		return dumpLine{}, false
	}
	rest := body[len(digits):]
	for _, f := range []dumpFormat{dumpCurl, dumpXXD, dumpHexdumpC} {
		if !bytes.HasPrefix(rest, f.separator()) || len(digits) < f.minDigits() {
			continue
		}
		d := dumpLine{format: f, offset: off, digits: digits}
		d.data, d.masked = f.cells(rest[len(f.separator()):])
		if len(d.data) > 0 && bytes.Equal(d.render(d.masked), body) {
			return d, true
		}
	}
	return dumpLine{}, false
}

// dumpOffset reads the lower-case hex offset a dump line starts with.
func dumpOffset(body []byte) ([]byte, uint64, bool) {
	i := 0
	var off uint64
	for i < len(body) && i < 16 && isLowerHex(body[i]) {
		off = off<<4 | uint64(hexValue(body[i]))
		i++
	}
	if i < 4 || i+2 > len(body) || (body[i] != ':' && body[i] != ' ') {
		return nil, 0, false
	}
	return body[:i], off, true
}

const lowerHex = "0123456789abcdef"

func hexByte(b byte) string { return lowerHex[b>>4:b>>4+1] + lowerHex[b&15:b&15+1] }

func isLowerHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

func hexValue(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'a' + 10
}

func (f dumpFormat) separator() []byte {
	if f == dumpHexdumpC {
		return []byte("  ")
	}
	return []byte(": ")
}

func (f dumpFormat) minDigits() int {
	if f == dumpCurl {
		return 4
	}
	return 8
}

// column is where byte c's two hex digits are, after the separator.
func (f dumpFormat) column(c int) int {
	switch f {
	case dumpHexdumpC:
		if c >= 8 {
			return 3*c + 1
		}
		return 3 * c
	case dumpXXD:
		return 5*(c/2) + 2*(c%2)
	}
	return 3 * c
}

// cells decodes the hex digits of a line, up to the first blank cell; a
// masked cell ("**") reads as a masked zero.
func (f dumpFormat) cells(rest []byte) (data []byte, masked []bool) {
	for c := range dumpWidth {
		at := f.column(c)
		switch {
		case at+2 > len(rest):
			return data, masked
		case rest[at] == '*' && rest[at+1] == '*':
			data, masked = append(data, 0), append(masked, true)
		case isLowerHex(rest[at]) && isLowerHex(rest[at+1]):
			data, masked = append(data, hexValue(rest[at])<<4|hexValue(rest[at+1])), append(masked, false)
		default:
			return data, masked
		}
	}
	return data, masked
}

// shown is how the text column shows b.
func (f dumpFormat) shown(b byte) byte {
	if b >= 0x20 && (b < 0x7f || f == dumpCurl && b == 0x7f) {
		return b
	}
	return '.'
}

// render writes d back in its format; masked[i] masks byte i.
func (d dumpLine) render(masked []bool) []byte {
	f := d.format
	out := append(append(make([]byte, 0, 80), d.digits...), f.separator()...)
	text := make([]byte, len(d.data))
	for c := range dumpWidth {
		cell := "  "
		if c < len(d.data) {
			cell, text[c] = hexByte(d.data[c]), f.shown(d.data[c])
			if c < len(masked) && masked[c] {
				cell, text[c] = "**", '*'
			}
		}
		out = append(out, cell...)
		if f != dumpXXD || c%2 == 1 {
			out = append(out, ' ')
		}
		if f == dumpHexdumpC && c == 7 {
			out = append(out, ' ')
		}
	}
	switch f {
	case dumpHexdumpC:
		return append(append(append(out, " |"...), text...), '|')
	case dumpXXD:
		return append(append(out, ' '), text...)
	}
	return append(out, text...)
}

// dumpRun is a run of consecutive dump lines held until it ends.
type dumpRun struct {
	lines []dumpLine
	eols  [][]byte
	nums  []int
}

// continues reports whether d goes on from the last line held.
func (r *dumpRun) continues(d dumpLine) bool {
	if len(r.lines) == 0 {
		return false
	}
	last := r.lines[len(r.lines)-1]
	return d.format == last.format && len(last.data) == dumpWidth && d.offset == last.offset+dumpWidth
}

// holdDump keeps a dump line; a line that does not go on from the run
// held ends it first.
func (s *stream) holdDump(d dumpLine, eol []byte, n int) {
	if !s.dump.continues(d) {
		s.flushDump()
	}
	s.dump.lines = append(s.dump.lines, d)
	s.dump.eols = append(s.dump.eols, bytes.Clone(eol))
	s.dump.nums = append(s.dump.nums, n)
}

// flushDump redacts the bytes a held run of dump lines shows and writes
// the lines with every masked byte masked in both columns.
func (s *stream) flushDump() {
	run := s.dump
	s.dump = dumpRun{}
	if len(run.lines) == 0 {
		return
	}
	joined, origin := run.joined()
	masked := make([]bool, 0, len(run.lines)*dumpWidth)
	for _, d := range run.lines {
		masked = append(masked, d.masked...)
	}
	newly, findings := s.maskedBytes(joined)
	for j, m := range newly {
		if m && origin[j] >= 0 {
			masked[origin[j]] = true
		}
	}
	for _, f := range findings {
		s.add(f.Rule, run.nums[run.lineOf(origin, f.Line)], f.Field)
	}
	at := 0
	for i, d := range run.lines {
		s.write(d.render(masked[at:at+len(d.data)]), run.eols[i])
		at += len(d.data)
	}
}

// joined returns the bytes the run shows, each run of masked bytes read as
// one Mask, and for each of its bytes the index of the byte shown (-1 in
// a Mask).
func (r *dumpRun) joined() (joined []byte, origin []int) {
	i := 0
	inMask := false
	for _, d := range r.lines {
		for c, b := range d.data {
			switch {
			case !d.masked[c]:
				joined, origin = append(joined, b), append(origin, i)
			case !inMask:
				joined = append(joined, Mask...)
				for range Mask {
					origin = append(origin, -1)
				}
			}
			inMask = d.masked[c]
			i++
		}
	}
	return joined, origin
}

// lineOf is the index of the line that shows joined byte j (or the first
// shown byte after it).
func (r *dumpRun) lineOf(origin []int, j int) int {
	for ; j < len(origin); j++ {
		if origin[j] >= 0 {
			return min(origin[j]/dumpWidth, len(r.lines)-1)
		}
	}
	return len(r.lines) - 1
}

// maskedBytes redacts data and says which of its bytes were masked; each
// finding's Line is set to the offset of the first byte masked on its
// line.
func (s *stream) maskedBytes(data []byte) ([]bool, []Finding) {
	out, sub := scan(data, s.depth, false)
	masked := make([]bool, len(data))
	inLines, outLines := bytes.SplitAfter(data, []byte{'\n'}), bytes.SplitAfter(out, []byte{'\n'})
	if len(inLines) != len(outLines) {
		for i := range masked {
			masked[i] = true
		}
		return masked, offsetFindings(sub.findings, nil)
	}
	starts := make([]int, len(inLines))
	at := 0
	for i, in := range inLines {
		starts[i] = at + maskLine(masked[at:at+len(in)], in, outLines[i])
		at += len(in)
	}
	return masked, offsetFindings(sub.findings, starts)
}

// maskLine marks in masked the bytes of in that out, in redacted, shows
// masked, and returns the first. Each Mask in out stands for the bytes
// between the text around it; when that text cannot be found in order,
// everything from the first changed byte to the last is masked.
func maskLine(masked []bool, in, out []byte) int {
	if bytes.Equal(in, out) {
		return 0
	}
	kept := bytes.Split(out, []byte(Mask))
	first, last := kept[0], kept[len(kept)-1]
	end := len(in) - len(last)
	if len(kept) < 2 || !bytes.HasPrefix(in, first) || end < len(first) || !bytes.HasSuffix(in, last) {
		return maskChanged(masked, in, out)
	}
	var spans [][2]int
	at := len(first)
	for _, mid := range kept[1 : len(kept)-1] {
		if len(mid) == 0 {
			continue
		}
		i := bytes.Index(in[min(at+1, end):end], mid)
		if i < 0 {
			return maskChanged(masked, in, out)
		}
		spans = append(spans, [2]int{at, min(at+1, end) + i})
		at = min(at+1, end) + i + len(mid)
	}
	if at > end {
		return maskChanged(masked, in, out)
	}
	for _, sp := range append(spans, [2]int{at, end}) {
		for j := sp[0]; j < sp[1]; j++ {
			masked[j] = true
		}
	}
	return len(first)
}

// maskChanged masks in from its first byte that differs from out to its
// last, and returns the first.
func maskChanged(masked []bool, in, out []byte) int {
	from := changedFrom(in, out)
	for j := from; j < len(in)-changedTail(in, out, from); j++ {
		masked[j] = true
	}
	return from
}

// offsetFindings sets each finding's Line to the byte offset its line's
// first masked byte has (0 without starts).
func offsetFindings(findings []Finding, starts []int) []Finding {
	out := make([]Finding, len(findings))
	for i, f := range findings {
		line := 0
		if len(starts) > 0 {
			line = starts[max(min(f.Line-1, len(starts)-1), 0)]
		}
		f.Line = line
		out[i] = f
	}
	return out
}

// changedFrom is the length of the common prefix of a and b.
func changedFrom(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// changedTail is the length of the common suffix of a and b that does not
// reach into a's first from bytes.
func changedTail(a, b []byte, from int) int {
	i := 0
	for i < len(a)-from && i < len(b)-from && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}
