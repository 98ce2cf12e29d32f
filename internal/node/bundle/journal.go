package bundle

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
)

// defaultLineMax is journald's LineMax: a line a service writes that is
// longer is stored as several entries of exactly LineMax bytes each (and
// the rest), so that a secret may be cut between two entries, its key in
// one and its value, or the rest of it, in the next.
const defaultLineMax = 48 << 10

// splitEntryJoiner reads `journalctl -o short-iso-precise` output and
// joins the entries journald split at LineMax back into the line the
// service wrote: an entry whose message is exactly lineMax bytes long goes
// on in the next entry of the same process ("HOST IDENT[PID]: "), whose
// prefix is dropped. The redactor then reads the line whole.
type splitEntryJoiner struct {
	src     *bufio.Reader
	lineMax int
	// open is the prefix of the entry being joined, when its message was
	// lineMax bytes long.
	open    []byte
	pending []byte
	err     error
}

func newSplitEntryJoiner(r io.Reader, lineMax int) *splitEntryJoiner {
	return &splitEntryJoiner{src: bufio.NewReaderSize(r, 64<<10), lineMax: lineMax}
}

func (j *splitEntryJoiner) Read(p []byte) (int, error) {
	for len(j.pending) == 0 {
		if j.err != nil {
			return 0, j.err
		}
		j.next()
	}
	n := copy(p, j.pending)
	j.pending = j.pending[n:]
	return n, nil
}

// next reads one entry (or a piece of a line longer than the buffer, passed
// through) into pending.
func (j *splitEntryJoiner) next() {
	line, err := j.src.ReadSlice('\n')
	if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
		j.err = err
	}
	if errors.Is(err, bufio.ErrBufferFull) {
		line, err = j.readLong(line)
		if err != nil {
			j.err = err
		}
	}
	if len(line) == 0 {
		if j.open != nil && j.err != nil {
			j.pending, j.open = []byte{'\n'}, nil // the split entry ended the output
		}
		return
	}
	body := bytes.TrimSuffix(line, []byte{'\n'})
	prefix, msg := journalPrefix(body)
	out := line
	switch {
	case j.open != nil && prefix != nil && bytes.Equal(entryKey(prefix), entryKey(j.open)):
		out = line[len(prefix):] // goes on from the split entry before
	case j.open != nil:
		out = append([]byte{'\n'}, line...) // the entry before was not split after all
	}
	j.open = nil
	if prefix != nil && len(msg) == j.lineMax && len(body) < len(line) {
		j.open = bytes.Clone(prefix)
		out = out[:len(out)-1] // the next entry goes on on this line
	}
	j.pending = out
}

// readLong reads the rest of a line longer than the buffer, up to a bound
// (a split entry is at most LineMax bytes and its prefix).
func (j *splitEntryJoiner) readLong(start []byte) ([]byte, error) {
	line := bytes.Clone(start)
	for len(line) <= j.lineMax+4096 {
		more, err := j.src.ReadSlice('\n')
		line = append(line, more...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
	return line, nil
}

// journalPrefix splits a short-iso-precise entry into its prefix
// ("2026-11-28T21:00:00.123456+0000 HOST IDENT[PID]: ") and its message.
func journalPrefix(line []byte) (prefix, msg []byte) {
	ts := bytes.IndexByte(line, ' ')
	if ts < 20 || line[4] != '-' || line[10] != 'T' {
		return nil, nil
	}
	end := bytes.Index(line[ts+1:], []byte(": "))
	if end < 0 {
		return nil, nil
	}
	n := ts + 1 + end + 2
	return line[:n], line[n:]
}

// entryKey is the part of a prefix that names the process: host and
// identifier with its PID.
func entryKey(prefix []byte) []byte {
	return prefix[bytes.IndexByte(prefix, ' ')+1:]
}

// lineMaxOf reads LineMax= from journald.conf's [Journal] section (sizes
// with K, M, G suffixes in powers of 1024, as journald parses them), or
// the default.
func lineMaxOf(conf []byte) int {
	lineMax := defaultLineMax
	for _, l := range bytes.Split(conf, []byte{'\n'}) {
		v, ok := bytes.CutPrefix(bytes.TrimSpace(l), []byte("LineMax="))
		if !ok {
			continue
		}
		if n, ok := parseSize(string(bytes.TrimSpace(v))); ok {
			lineMax = max(n, 79) // journald's floor
		}
	}
	return lineMax
}

func parseSize(s string) (int, bool) {
	mult := 1
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'K':
			mult, s = 1<<10, s[:n-1]
		case 'M':
			mult, s = 1<<20, s[:n-1]
		case 'G':
			mult, s = 1<<30, s[:n-1]
		}
	}
	n, err := strconv.Atoi(s)
	return n * mult, err == nil && n > 0
}
