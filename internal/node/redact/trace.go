package redact

import "bytes"

// curlTraceWidth is how many characters of data `curl --trace-ascii`
// writes on a line: a longer header or body line goes on over the next
// lines, each with its own offset ("004e: X-Amz-Security-Token: AQoE…",
// "008e: li8GjH…"), so a secret value is cut across lines.
const curlTraceWidth = 64

// traceLines are consecutive lines of a `curl --trace-ascii` dump that
// form one line of the traced data: all but the last are full.
type traceLines struct {
	raws [][]byte // the lines, line breaks included
	nums []int
}

// curlTraceData returns the data of a `curl --trace-ascii` line
// ("%04x: data"): a hex offset of at least four digits, a colon, a space.
func curlTraceData(body []byte) ([]byte, bool) {
	i := 0
	for i < len(body) && isHexDigit(body[i]) && (body[i] < 'A' || body[i] > 'F') {
		i++
	}
	if i < 4 || i+1 >= len(body) || body[i] != ':' || body[i+1] != ' ' {
		return nil, false
	}
	return body[i+2:], true
}

// continuesTrace reports whether body goes on with the traced line held.
func (s *stream) continuesTrace(body []byte) bool {
	_, ok := curlTraceData(body)
	return ok && len(s.trace.raws) > 0
}

// holdTrace keeps a trace line until the traced line it belongs to is
// complete (a line shorter than the full width ends it).
func (s *stream) holdTrace(raw, body []byte, n int) {
	s.trace.raws = append(s.trace.raws, bytes.Clone(raw))
	s.trace.nums = append(s.trace.nums, n)
	if data, _ := curlTraceData(body); len(data) < curlTraceWidth {
		s.flushTrace()
	}
}

// flushTrace redacts the held trace lines. A traced line cut across
// several is also read whole; when that shows a secret, the lines after
// the first are masked whole (after their offsets), and the first too
// unless its own redaction masked it to its end (the header's name stays:
// "004e: X-Amz-Security-Token: REDACTED").
func (s *stream) flushTrace() {
	raws, nums := s.trace.raws, s.trace.nums
	s.trace = traceLines{}
	if len(raws) == 0 {
		return
	}
	var joined []byte
	for _, raw := range raws {
		body, _ := splitEOL(raw)
		data, _ := curlTraceData(body)
		joined = append(joined, data...)
	}
	rule := Rule("")
	if len(raws) > 1 {
		if _, sub := scan(joined, s.depth, false); len(sub.findings) > 0 {
			rule = sub.findings[0].Rule
		}
	}
	for i, raw := range raws {
		body, eol := splitEOL(raw)
		out := s.redactLine(body, nums[i])
		if rule != "" && (i > 0 || !bytes.HasSuffix(out, []byte(Mask))) {
			data, _ := curlTraceData(body)
			s.add(rule, nums[i], "")
			out = append(bytes.Clone(body[:len(body)-len(data)]), Mask...)
		}
		s.write(out, eol)
	}
}
