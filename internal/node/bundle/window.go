package bundle

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"time"
)

// Window keeps the lines of a log whose timestamp falls at or after since.
// It understands the timestamps of the logs collected: klog
// ("I1122 10:00:00.000000"), logfmt (time="2026-11-22T10:00:00Z"), lines
// starting with RFC 3339 ("2026-11-22T10:00:00Z", "2026-11-22 10:00:00,123")
// and syslog ("Nov 22 10:00:00"). A line without a timestamp goes with the
// line before it (stack traces, continuations); lines before the first
// timestamp are kept. Timestamps without a year are placed in the year
// that puts them at or before now. It is pure.
func Window(data []byte, since, now time.Time) (kept []byte, dropped int) {
	w := newWindowReader(bytes.NewReader(data), since, now)
	out, _ := io.ReadAll(w)
	return out, w.dropped
}

// windowReader streams the lines of a log that Window keeps.
type windowReader struct {
	src        *bufio.Reader
	since, now time.Time
	keep       bool
	dropped    int
	pending    []byte // kept bytes not yet returned
	err        error
	// inLongLine is set while the rest of a line longer than the buffer
	// comes; longLineKept says whether its start was kept.
	inLongLine, longLineKept bool
}

func newWindowReader(r io.Reader, since, now time.Time) *windowReader {
	return &windowReader{src: bufio.NewReaderSize(r, 64<<10), since: since, now: now, keep: true}
}

// Read returns kept lines; a line longer than the buffer is passed through
// in pieces, kept or dropped whole by its start.
func (w *windowReader) Read(p []byte) (int, error) {
	for len(w.pending) == 0 {
		if w.err != nil {
			return 0, w.err
		}
		w.next()
	}
	n := copy(p, w.pending)
	w.pending = w.pending[n:]
	return n, nil
}

// fill reads until a kept line is pending or the input ends, so that
// dropped counts the lines dropped before the first kept.
func (w *windowReader) fill() {
	for len(w.pending) == 0 && w.err == nil {
		w.next()
	}
}

// next reads one line (or piece of a long one) into pending, if kept.
func (w *windowReader) next() {
	line, err := w.src.ReadSlice('\n')
	full := !errors.Is(err, bufio.ErrBufferFull)
	if full && err != nil {
		w.err = err
	}
	if w.inLongLine {
		if w.longLineKept {
			w.pending = line
		}
		w.inLongLine = !full
		return
	}
	if len(line) == 0 {
		return
	}
	if !w.since.IsZero() {
		if t, ok := lineTime(line, w.since.Location(), w.now); ok {
			w.keep = !t.Before(w.since)
		}
	}
	w.inLongLine, w.longLineKept = !full, w.keep
	if w.keep {
		w.pending = line
	} else {
		w.dropped++
	}
}

// lineTime finds the timestamp of a log line.
func lineTime(line []byte, loc *time.Location, now time.Time) (time.Time, bool) {
	if t, ok := klogTime(line, loc, now); ok {
		return t, true
	}
	if i := bytes.Index(line, []byte(`time="`)); i >= 0 && i < 64 {
		if t, ok := rfc3339Prefix(line[i+len(`time="`):]); ok {
			return t, true
		}
	}
	if t, ok := rfc3339Prefix(line); ok {
		return t, true
	}
	return syslogTime(line, loc, now)
}

// klogTime parses "Lmmdd hh:mm:ss.uuuuuu".
func klogTime(line []byte, loc *time.Location, now time.Time) (time.Time, bool) {
	if len(line) < 21 || bytes.IndexByte([]byte("IWEF"), line[0]) < 0 || line[5] != ' ' {
		return time.Time{}, false
	}
	t, err := time.ParseInLocation("0102 15:04:05.000000", string(line[1:21]), loc)
	if err != nil {
		return time.Time{}, false
	}
	return inYear(t, now), true
}

// rfc3339Prefix parses a timestamp at the start of b, in one of the
// layouts logs use.
func rfc3339Prefix(b []byte) (time.Time, bool) {
	if len(b) < 19 || b[4] != '-' || b[7] != '-' {
		return time.Time{}, false
	}
	for _, layout := range []string{time.RFC3339Nano, time.RFC3339, "2006-01-02 15:04:05,000", "2006-01-02 15:04:05"} {
		n := len(layout)
		if layout == time.RFC3339Nano {
			n = len("2006-01-02T15:04:05.000000000Z07:00")
		}
		for end := min(n, len(b)); end >= 19; end-- {
			if t, err := time.Parse(layout, string(b[:end])); err == nil {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// syslogTime parses "Jan _2 15:04:05".
func syslogTime(line []byte, loc *time.Location, now time.Time) (time.Time, bool) {
	if len(line) < 15 {
		return time.Time{}, false
	}
	t, err := time.ParseInLocation(time.Stamp, string(line[:15]), loc)
	if err != nil {
		return time.Time{}, false
	}
	return inYear(t, now), true
}

// inYear gives a year-less time the year that puts it at or before now
// (a day of slack for clocks and zones).
func inYear(t, now time.Time) time.Time {
	y := time.Date(now.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
	if y.After(now.Add(24 * time.Hour)) {
		y = y.AddDate(-1, 0, 0)
	}
	return y
}
