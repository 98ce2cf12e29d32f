package redact

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// stream redacts line by line. What spans lines is carried in its state:
// an open PEM private key block, an open JSON identity object, the open
// YAML sections, a pending {name, value} pair, and the lines of a
// multi-line base64 block, held until the block ends so that it can be
// decoded whole.
type stream struct {
	redactor
	out io.Writer
	// lenient masks a line that cannot be scanned instead of failing.
	lenient bool
	err     error
	n       int // lines fed so far
	pem     pemState
	json    jsonIdentity
	open    []section // nested YAML sections, outermost first
	named   namedValue
	// noViews is set on the stream that redacts a view (no views of views).
	noViews bool
	// cutFirst masks the first line whole: the input was cut before it.
	cutFirst bool
	block    heldBlock
	trace    traceLines
	dump     dumpRun
	table    tableColumns
}

// heldBlock is a run of lines that may form one base64 block.
type heldBlock struct {
	lines [][]byte // raw lines, line breaks included
	nums  []int
	size  int
	// overflow is set once the block outgrew maxBlock: the rest of its
	// lines are masked as they come.
	overflow bool
}

func newStream(out io.Writer, depth int, lenient bool) *stream {
	return &stream{redactor: redactor{depth: depth}, out: out, lenient: lenient}
}

// readFrom feeds every line of src, refusing lines over MaxLine.
func (s *stream) readFrom(src io.Reader) error {
	br := bufio.NewReaderSize(src, 64<<10)
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(chunk) > MaxLine {
				return fmt.Errorf("line %d is longer than %d MiB: %w", s.n+1, MaxLine>>20, ErrUnscannable)
			}
			long = append(long, chunk...)
			continue
		}
		if len(long) > 0 {
			long = append(long, chunk...)
			chunk = long
		}
		if len(chunk) > 0 {
			s.feed(chunk)
		}
		long = long[:0]
		switch {
		case s.err != nil:
			return s.err
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		}
	}
}

// feed redacts one line (its line break included).
func (s *stream) feed(raw []byte) {
	if s.err != nil {
		return
	}
	s.n++
	s.route(raw, s.n)
}

// route sends line n where it goes: into an open private key block, into
// a base64 block being held, or through the line rules.
func (s *stream) route(raw []byte, n int) {
	body, eol := splitEOL(raw)
	if why := unscannable(body); why != "" {
		if !s.lenient {
			s.err = fmt.Errorf("line %d: %s: %w", n, why, ErrUnscannable)
			return
		}
		// Masked whole, and then a line like any other (inside an open key
		// block, it stays part of it).
		raw, body = s.maskedWhole(RuleUnscannable, n, eol)
	} else if n == 1 && s.cutFirst && len(bytes.TrimSpace(body)) > 0 {
		raw, body = s.maskedWhole(RuleCutLine, n, eol)
	}
	dump, isDump := parseDumpLine(body)
	if !isDump {
		s.flushDump()
	}
	if isDump || !s.continuesTrace(body) {
		s.flushTrace()
	}
	switch {
	case s.pem.active:
		s.pemHold(raw, body, eol, n)
	case isDump:
		s.flushBlock()
		s.holdDump(dump, eol, n)
	case s.depth < maxDepth && isBlockLine(body):
		s.hold(raw, body, eol, n)
	case isTraceLine(body):
		s.flushBlock()
		s.holdTrace(raw, body, n)
	default:
		s.flushBlock()
		s.process(body, eol, n)
	}
}

func isTraceLine(body []byte) bool {
	_, ok := curlTraceData(body)
	return ok
}

// maskedWhole records line n as masked whole under rule and returns the
// line that replaces it.
func (s *stream) maskedWhole(rule Rule, n int, eol []byte) (raw, body []byte) {
	s.add(rule, n, "")
	body = []byte(Mask)
	return append(append([]byte{}, body...), eol...), body
}

// unscannable says why a line cannot be scanned, or "".
func unscannable(body []byte) string {
	switch {
	case len(body) > MaxLine:
		return fmt.Sprintf("longer than %d MiB", MaxLine>>20)
	case bytes.IndexByte(body, 0) >= 0:
		return "binary data (a NUL byte)"
	}
	return ""
}

// finish flushes what is held at the end of the input.
func (s *stream) finish() {
	s.flushHeld()
}

// flushHeld writes every line held (an open key block, whose END line
// never came, and a base64 block), in order.
func (s *stream) flushHeld() {
	for s.err == nil && (s.pem.active || len(s.pem.held) > 0) {
		s.pem.active = false
		s.pemRelease(false)
	}
	if s.err == nil {
		s.flushDump()
		s.flushTrace()
		s.flushBlock()
	}
}

func (s *stream) write(body, eol []byte) {
	if s.err != nil {
		return
	}
	if _, err := s.out.Write(body); err != nil {
		s.err = err
		return
	}
	if _, err := s.out.Write(eol); err != nil {
		s.err = err
	}
}

// process redacts a line that is not held: values found in its escaped
// views, private keys, JSON identity objects, line rules; then its views
// must show nothing left.
func (s *stream) process(body, eol []byte, n int) {
	s.write(s.redactLine(body, n), eol)
}

// redactLine redacts a line that is not held and returns it.
func (s *stream) redactLine(body []byte, n int) []byte {
	line := s.views(body, n)
	line = s.pemBlocks(line, n)
	line = s.json.line(&s.redactor, line, n)
	line = s.lineRules(line, n)
	return s.viewsClean(line, n)
}

// hold keeps a line that may belong to a base64 block.
func (s *stream) hold(raw, body, eol []byte, n int) {
	b := &s.block
	if b.overflow {
		s.write(maskWhole(body), eol)
		return
	}
	b.lines = append(b.lines, bytes.Clone(raw))
	b.nums = append(b.nums, n)
	b.size += len(raw)
	if b.size <= maxBlock {
		return
	}
	s.add(RuleUndecodable, b.nums[0], "")
	s.writeHeld(true)
	b.overflow = true
}

// flushBlock decides a held block: masked whole when it decodes to a
// secret or cannot be decoded within the bounds, else redacted line by
// line.
func (s *stream) flushBlock() {
	b := &s.block
	if b.overflow {
		*b = heldBlock{}
		return
	}
	if len(b.lines) == 0 {
		return
	}
	if len(b.lines) >= 2 {
		var joined []byte
		for _, raw := range b.lines {
			body, _ := splitEOL(raw)
			joined = append(joined, bytes.TrimSpace(body)...)
		}
		if v := s.decodedVerdict(joined); v != plain {
			s.add(v.rule(), b.nums[0], "")
			s.writeHeld(true)
			return
		}
	}
	s.writeHeld(false)
}

// writeHeld writes the held lines, masked whole or redacted one by one.
func (s *stream) writeHeld(masked bool) {
	lines, nums := s.block.lines, s.block.nums
	s.block.lines, s.block.nums, s.block.size = nil, nil, 0
	for i, raw := range lines {
		body, eol := splitEOL(raw)
		if masked {
			s.write(maskWhole(body), eol)
			continue
		}
		s.process(body, eol, nums[i])
	}
}

// isBlockLine reports whether a line may belong to a multi-line base64
// block (MIME bodies use 76 columns, PEM 64).
func isBlockLine(body []byte) bool {
	t := bytes.TrimSpace(body)
	return len(t) >= minBlockLine && allBase64(t) && !isMask(t)
}

// scan redacts data as a stream of its own at depth; with collect the
// redactor also returns the values it masked.
func scan(data []byte, depth int, collect bool) ([]byte, redactor) {
	var out bytes.Buffer
	out.Grow(len(data))
	s := newStream(&out, depth, true)
	s.collect = collect
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line = data[:i+1]
		}
		data = data[len(line):]
		s.feed(line)
	}
	s.finish()
	return out.Bytes(), s.redactor
}

func splitEOL(raw []byte) (body, eol []byte) {
	body = bytes.TrimSuffix(raw, []byte{'\n'})
	body = bytes.TrimSuffix(body, []byte{'\r'})
	return body, raw[len(body):]
}
