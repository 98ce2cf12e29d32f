package bundle

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/nodeboot/nodeboot/internal/inroot"
	"github.com/nodeboot/nodeboot/internal/node/redact"
)

// maxListedRedactions bounds redactions.json; the manifest counts all.
const maxListedRedactions = 20000

// entry is one collected item on its way into the archive.
type entry struct {
	name     string
	source   string
	command  string
	exitCode *int
	// body is the content, streamed; nil when there is none.
	body io.Reader
	// cutStart is set when body starts in the middle of its source (the
	// end of a log kept); lineStart when that cut fell at a line's start.
	cutStart  bool
	lineStart bool
	truncated bool
	// window drops the lines before the log window.
	window bool
	err    error
	note   string
	start  time.Time
}

// archive streams redacted entries into the tar stream and keeps the
// manifest, the totals and the redactions.
type archive struct {
	tw       *tar.Writer
	now      time.Time
	since    time.Time
	maxItem  int64
	maxTotal int64
	total    int64
	// red holds one item's redacted content until its size is known.
	red        *spool
	m          *Manifest
	redactions []Redaction
}

// add streams e into the archive (unless it has no content) and lists it
// in the manifest.
func (a *archive) add(ctx context.Context, kind string, e entry) {
	it := Item{Kind: kind, Source: e.source, Command: e.command, ExitCode: e.exitCode, Truncated: e.truncated, Note: e.note}
	if e.err != nil {
		it.Error = e.err.Error()
	}
	if e.body != nil && e.name != "" {
		a.stream(ctx, &it, e)
	}
	if e.start.IsZero() {
		e.start = time.Now()
	}
	it.DurationMS = float64(time.Since(e.start).Microseconds()) / 1000
	a.m.Items = append(a.m.Items, it)
}

// stream decodes, windows and redacts e into the spool, then copies the
// spool into the archive within the total limit. Content that cannot be
// scanned is withheld: nothing of it is written.
func (a *archive) stream(ctx context.Context, it *Item, e entry) {
	src, gzipped, err := gunzipped(e.body)
	if err != nil {
		withhold(it, err)
		return
	}
	var win *windowReader
	if e.window {
		win = newWindowReader(src, a.since, a.now)
		src = win
	}
	lineStart := e.lineStart
	if win != nil && e.cutStart {
		// A line dropped before the window ends where a whole line starts.
		win.fill()
		lineStart = lineStart || win.dropped > 0
	}
	lim := &limitReader{r: ctxReader{ctx: ctx, r: src}, n: a.maxItem}
	sum, err := a.redact(lim, e.cutStart, lineStart)
	switch {
	case err == nil && gzipped && lim.over:
		err = fmt.Errorf("%w: it inflates past the item limit of %s", errUndecodable, inroot.Size(a.maxItem))
		fallthrough
	case errors.Is(err, redact.ErrUnscannable), errors.Is(err, errUndecodable):
		withhold(it, err)
		return
	case err != nil:
		it.Error = joinNote(it.Error, "stopped: "+err.Error())
		return
	}
	if a.red.size == 0 && e.err != nil {
		return // nothing came but the error: listed, not archived
	}
	it.Truncated = it.Truncated || lim.over
	if gzipped {
		it.Note = joinNote(it.Note, "decompressed (gzip)")
	}
	if win != nil {
		it.Note = joinNote(it.Note, fmt.Sprintf("lines before %s dropped: %d", a.since.UTC().Format(time.RFC3339), win.dropped))
	}
	a.write(it, e.name, sum)
}

// redact copies src, redacted, into the spool (buffered: the redactor
// writes line by line); a source cut at its start is redacted as a tail.
func (a *archive) redact(src io.Reader, cutStart, lineStart bool) (redact.Summary, error) {
	if err := a.red.reset(a.maxItem, false); err != nil {
		return redact.Summary{}, err
	}
	w := bufio.NewWriterSize(a.red, 256<<10)
	copyFn := redact.Copy
	if cutStart {
		copyFn = func(dst io.Writer, src io.Reader) (redact.Summary, error) {
			return redact.CopyTail(dst, src, lineStart)
		}
	}
	sum, err := copyFn(w, src)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return sum, err
}

// write copies the spool into the archive, cut at the total limit.
func (a *archive) write(it *Item, name string, sum redact.Summary) {
	size := min(a.red.size, max(a.maxTotal-a.total, 0))
	if size < a.red.size {
		it.Truncated = true
		it.Note = joinNote(it.Note, "cut at the bundle's size limit")
	}
	if err := a.entry(name, io.LimitReader(a.red.reader(), size), size); err != nil {
		it.Error = joinNote(it.Error, err.Error())
		return
	}
	it.Name, it.Size, it.Redactions = archiveDir+name, int(size), sum.Total
	a.total += size
	a.m.RedactionsTotal += sum.Total
	for _, f := range sum.Findings {
		if len(a.redactions) < maxListedRedactions {
			a.redactions = append(a.redactions, Redaction{Item: archiveDir + name, Finding: f})
		}
	}
}

// entry writes one archive member.
func (a *archive) entry(name string, r io.Reader, size int64) error {
	hdr := &tar.Header{Name: archiveDir + name, Mode: 0o644, Size: size, ModTime: a.now, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	if err := a.tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err := io.Copy(a.tw, r)
	return err
}

// meta writes redactions.json and manifest.json.
func (a *archive) meta() error {
	redactions := a.redactions
	if redactions == nil {
		redactions = []Redaction{}
	}
	a.m.RedactionsListed = len(redactions)
	for _, meta := range []struct {
		name string
		v    any
	}{{"redactions.json", redactions}, {"manifest.json", a.m}} {
		data, err := json.MarshalIndent(meta.v, "", "  ")
		if err != nil {
			return err
		}
		data = append(data, '\n')
		if err := a.entry(meta.name, bytesReader(data), int64(len(data))); err != nil {
			return err
		}
	}
	return nil
}

func withhold(it *Item, err error) {
	it.Withheld = true
	it.Error = joinNote(it.Error, "withheld: "+err.Error())
}

// errUndecodable marks content that could not be decoded within the bounds.
var errUndecodable = errors.New("cannot be decoded within the bounds")

// gunzipped returns r's content, inflated when it is gzip (rotated logs,
// compressed state): the redactor must see what the archive would hold.
func gunzipped(r io.Reader) (io.Reader, bool, error) {
	br := bufio.NewReaderSize(r, 4096)
	magic, _ := br.Peek(2)
	if len(magic) < 2 || magic[0] != 0x1f || magic[1] != 0x8b {
		return br, false, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, true, fmt.Errorf("gzip: %w: %w", errUndecodable, err)
	}
	return undecodableErrors{zr}, true, nil
}

// undecodableErrors marks every read error of a decoder as errUndecodable.
type undecodableErrors struct{ r io.Reader }

func (u undecodableErrors) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = fmt.Errorf("gzip: %w: %w", errUndecodable, err)
	}
	return n, err
}

// limitReader reads at most n bytes and notes whether more were there.
type limitReader struct {
	r    io.Reader
	n    int64
	over bool
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		var one [1]byte
		if n, _ := l.r.Read(one[:]); n > 0 {
			l.over = true
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

// ctxReader stops reading once ctx is done: the run's deadline and a
// signal end an item between two reads (regular files never block).
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.r.Read(p)
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
