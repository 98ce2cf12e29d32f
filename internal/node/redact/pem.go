package redact

import (
	"bytes"
)

const (
	pemBegin      = "-----BEGIN "
	pemEnd        = "-----END "
	pemDashes     = "-----"
	privateKeyTag = "PRIVATE KEY"
	// pemMaxLines and pemMaxBytes bound the lines held after a BEGIN line
	// while its END line is looked for (an RSA 16384 key has 170 lines).
	pemMaxLines = 512
	pemMaxBytes = 1 << 20
)

// pemState is a private key block whose BEGIN line was seen and whose END
// line was not yet: its lines are held until the END line comes (then all
// are masked, whatever they look like: a journal prefixes each line with
// its own fields) or the bound is reached (a key cut short in a log: the
// lines that look like a key body are masked).
type pemState struct {
	active bool
	// label is the BEGIN line's ("EC PRIVATE KEY"); nil when the BEGIN line
	// was cut off (CopyTail), and any END line ends the block.
	label []byte
	begin int  // line of the BEGIN marker
	found bool // a finding was added for this block
	held  [][]byte
	nums  []int
	size  int
}

func (p *pemState) endMarker() []byte {
	if p.label == nil {
		return []byte(pemEnd)
	}
	return append(append([]byte(pemEnd), p.label...), pemDashes...)
}

// pemHold takes a line of an open block.
func (s *stream) pemHold(raw, body, eol []byte, n int) {
	if i := bytes.Index(body, s.pem.endMarker()); i >= 0 {
		s.pemRelease(true)
		s.pem.active = false
		s.process(append(s.pemMask(body[:i]), body[i:]...), eol, n)
		return
	}
	s.pem.held = append(s.pem.held, bytes.Clone(raw))
	s.pem.nums = append(s.pem.nums, n)
	s.pem.size += len(raw)
	if len(s.pem.held) >= pemMaxLines || s.pem.size >= pemMaxBytes {
		s.pem.active = false
		s.pemRelease(false)
	}
}

// pemRelease writes the held lines of a block: all masked when its END
// line came (complete), else masked as long as they look like a key body
// (and read for the state that spans lines), the rest fed again as
// ordinary lines.
func (s *stream) pemRelease(complete bool) {
	held, nums := s.pem.held, s.pem.nums
	s.pem.held, s.pem.nums, s.pem.size = nil, nil, 0
	masking := true
	for i, raw := range held {
		body, eol := splitEOL(raw)
		masking = masking && (complete || pemBodyLine(bytes.TrimSpace(body)) || len(bytes.TrimSpace(body)) == 0)
		if masking {
			if !complete {
				// It may be a log line after all: what spans lines (a
				// {name, value} pair, a YAML section) must still see it.
				s.redactLine(body, nums[i])
			}
			s.write(s.pemMask(body), eol)
			continue
		}
		s.route(raw, nums[i])
	}
}

// pemMask masks the text of part (keeping its indentation) and records
// the block's finding once.
func (s *stream) pemMask(part []byte) []byte {
	out := maskWhole(part)
	if !bytes.Equal(out, part) {
		s.masked(RulePrivateKey, string(s.pem.label), bytes.TrimSpace(part))
		if !s.pem.found {
			s.pem.found = true
			s.add(RulePrivateKey, max(s.pem.begin, 1), string(s.pem.label))
		}
	}
	return out
}

// pemBlocks masks the private key blocks that begin on this line: up to
// their END marker on the same line (escaped in a JSON string), or to the
// end of the line, leaving the block open.
func (s *stream) pemBlocks(line []byte, n int) []byte {
	from := 0
	for {
		i := bytes.Index(line[from:], []byte(pemBegin))
		if i < 0 {
			return line
		}
		start := from + i + len(pemBegin)
		label, ok := pemLabel(line[start:])
		if !ok || !bytes.HasSuffix(label, []byte(privateKeyTag)) {
			from = start
			continue
		}
		s.pem = pemState{label: bytes.Clone(label), begin: n}
		body := start + len(label) + len(pemDashes)
		marker := s.pem.endMarker()
		end := bytes.Index(line[body:], marker)
		if end < 0 {
			s.pem.active = true
			return append(line[:body:body], s.pemMask(line[body:])...)
		}
		masked := s.pemMask(line[body : body+end])
		rest := line[body+end:]
		line = append(append(line[:body:body], masked...), rest...)
		from = body + len(masked) + len(marker)
	}
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

// pemBodyLine reports whether a trimmed line can be part of a PEM body:
// base64, an RFC 1421 header of an encrypted key ("Proc-Type: 4,ENCRYPTED",
// "DEK-Info: …"), or a log line whose last word is base64 (a journal's
// prefix before each line). Any other line with a colon is not one: every
// log line has one (its timestamp), and taking them for a key body masked
// the first 512 lines of every log tail.
func pemBodyLine(line []byte) bool {
	if allBase64(line) || bytes.Contains(line, []byte("Proc-Type:")) || bytes.Contains(line, []byte("DEK-Info:")) {
		return true
	}
	last := line[bytes.LastIndexAny(line, " \t")+1:]
	return len(last) >= minBlockLine && allBase64(last)
}

// maskWhole masks a line's text, keeping its indentation.
func maskWhole(line []byte) []byte {
	trimmed := bytes.TrimLeft(line, " \t")
	if len(bytes.TrimSpace(trimmed)) == 0 || isMask(bytes.TrimSpace(trimmed)) {
		return line
	}
	return append(bytes.Clone(line[:len(line)-len(trimmed)]), Mask...)
}

func isBase64Char(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == '-' || c == '_'
}

func allBase64(b []byte) bool {
	for _, c := range b {
		if !isBase64Char(c) {
			return false
		}
	}
	return true
}
