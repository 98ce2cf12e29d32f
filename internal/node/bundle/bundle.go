package bundle

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/node/cmdrun"
	"github.com/nodeboot/nodeboot/internal/node/doctor"
	"github.com/nodeboot/nodeboot/internal/node/redact"
)

// Defaults.
const (
	// DefaultPath is where the bundle goes: under /var/log, which the
	// kubelet serves at /logs/ through the API server's node proxy.
	DefaultPath = "/var/log/support/nodeboot-logs.tar.gz"
	// DefaultSince is the default log window.
	DefaultSince = 24 * time.Hour
	// DefaultCommandTimeout bounds each command.
	DefaultCommandTimeout = 60 * time.Second
	// DefaultRunTimeout bounds the whole run.
	DefaultRunTimeout = 10 * time.Minute
	// DefaultMaxItemBytes bounds each item (logs keep their end).
	DefaultMaxItemBytes = 32 << 20
	// DefaultMaxTotalBytes bounds the uncompressed content of a bundle.
	DefaultMaxTotalBytes = 256 << 20
	// DefaultMinFreeBytes is the free space the target file system must
	// have before anything is written.
	DefaultMinFreeBytes = 1 << 30
	// archiveDir is the top directory inside the archive.
	archiveDir = "nodeboot-logs/"
)

// ErrLowSpace is returned when the target file system is below the floor.
var ErrLowSpace = errors.New("not enough free space for a support bundle")

// Bundle collects and writes one support bundle. Commands is required;
// other zero fields take their defaults or leave their items out.
type Bundle struct {
	// Root is the directory node paths are read (and the bundle written) under.
	Root string
	// Out is the bundle's node path; empty means DefaultPath.
	Out string
	// Since is the log window; 0 means DefaultSince.
	Since time.Duration
	// Commands runs host commands.
	Commands cmdrun.Runner
	// Report runs (or returns) the doctor report; nil leaves it out.
	Report func(ctx context.Context) doctor.Report
	// UserData reads the config sources' documents; nil leaves them out.
	UserData func(ctx context.Context) ([]userdata.Document, error)
	// Tool names the program and its version in the manifest.
	Tool string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// FreeBytes returns the space available to unprivileged writers on the
	// file system of a path; nil means statfs.
	FreeBytes func(path string) (uint64, error)

	CommandTimeout, RunTimeout  time.Duration
	MaxItemBytes, MaxTotalBytes int
	MinFreeBytes                uint64
}

func (b Bundle) maxItem() int {
	if b.MaxItemBytes > 0 {
		return b.MaxItemBytes
	}
	return DefaultMaxItemBytes
}

func (b Bundle) commandTimeout() time.Duration {
	if b.CommandTimeout > 0 {
		return b.CommandTimeout
	}
	return DefaultCommandTimeout
}

func (b Bundle) withDefaults() Bundle {
	if b.Out == "" {
		b.Out = DefaultPath
	}
	if b.Since <= 0 {
		b.Since = DefaultSince
	}
	if b.RunTimeout <= 0 {
		b.RunTimeout = DefaultRunTimeout
	}
	if b.MaxTotalBytes <= 0 {
		b.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if b.MinFreeBytes == 0 {
		b.MinFreeBytes = DefaultMinFreeBytes
	}
	if b.Now == nil {
		b.Now = time.Now
	}
	if b.FreeBytes == nil {
		b.FreeBytes = statfsFree
	}
	if b.Root == "" {
		b.Root = "/"
	}
	return b
}

// Result is a written bundle.
type Result struct {
	// Path is where it was written (under Root).
	Path       string
	Manifest   Manifest
	Redactions []Redaction
}

// Write collects everything and writes the archive atomically (a
// temporary file renamed into place). It refuses to start when the target
// file system has less than MinFreeBytes free.
func (b Bundle) Write(ctx context.Context) (Result, error) {
	b = b.withDefaults()
	out := filepath.Join(b.Root, filepath.Clean("/"+b.Out))
	dir := filepath.Dir(out)
	if err := b.checkSpace(dir); err != nil {
		return Result{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Result{}, fmt.Errorf("bundle directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".nodeboot-logs-*.tmp")
	if err != nil {
		return Result{}, fmt.Errorf("bundle: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	res, err := b.writeArchive(ctx, tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), out)
	}
	if err != nil {
		return Result{}, fmt.Errorf("write bundle %s: %w", b.Out, err)
	}
	res.Path = out
	return res, nil
}

// checkSpace refuses to run below the free-space floor, measured on the
// nearest existing directory of the target.
func (b Bundle) checkSpace(dir string) error {
	for {
		if _, err := os.Stat(dir); err == nil || filepath.Dir(dir) == dir {
			break
		}
		dir = filepath.Dir(dir)
	}
	free, err := b.FreeBytes(dir)
	if err != nil {
		return fmt.Errorf("measure free space on %s: %w", dir, err)
	}
	if free < b.MinFreeBytes {
		return fmt.Errorf("%w: %d MiB free on the file system of %s, at least %d MiB needed; free some space or write elsewhere with --out",
			ErrLowSpace, free>>20, dir, b.MinFreeBytes>>20)
	}
	return nil
}

func (b Bundle) writeArchive(ctx context.Context, w io.Writer) (Result, error) {
	start := b.Now()
	ctx, cancel := context.WithTimeout(ctx, b.RunTimeout)
	defer cancel()
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	r := &runner{b: b, now: start, since: start.Add(-b.Since)}
	a := &archive{tw: tw, now: start, maxTotal: b.MaxTotalBytes}
	m := Manifest{Tool: b.Tool, Created: start.UTC(), Root: b.Root, Window: LogWindow{Since: r.since.UTC(), Until: start.UTC()},
		Limits: Limits{CommandTimeout: b.commandTimeout().String(), RunTimeout: b.RunTimeout.String(),
			MaxItemBytes: b.maxItem(), MaxTotalBytes: b.MaxTotalBytes, MinFreeBytes: b.MinFreeBytes}}
	host := filepath.Clean(b.Root) == "/"
	journal := host && b.hasJournal(ctx, r)
	m.Logs = "files under /var/log: no systemd journal on this host (the window applies to timestamped lines)"
	if journal {
		m.Logs = "systemd journal"
	}
	if !host {
		m.Notes = append(m.Notes, "host commands and the journal were not collected: --root is not /")
	}
	if b.Report != nil {
		rep := b.Report(ctx)
		m.Node = rep.Node
		a.add(&m, KindReport, produced{name: "doctor/report.txt", data: rep.Text()})
		js, err := rep.JSON()
		a.add(&m, KindReport, produced{name: "doctor/report.json", data: js, err: err})
	} else {
		m.Notes = append(m.Notes, "no doctor report")
	}
	for _, c := range collectors(journal) {
		if c.host && !host {
			continue
		}
		if ctx.Err() != nil {
			m.Items = append(m.Items, Item{Kind: c.kind, Error: "skipped: the run reached its time limit of " + b.RunTimeout.String()})
			continue
		}
		for _, p := range c.run(ctx, r) {
			a.add(&m, c.kind, p)
		}
	}
	b.addUserData(ctx, a, &m)
	m.Duration = b.Now().Sub(start).Round(time.Millisecond).String()
	redactions := a.redactions
	if redactions == nil {
		redactions = []Redaction{}
	}
	for _, meta := range []struct {
		name string
		v    any
	}{{"redactions.json", redactions}, {"manifest.json", m}} {
		data, err := json.MarshalIndent(meta.v, "", "  ")
		if err != nil {
			return Result{}, err
		}
		if err := a.write(meta.name, append(data, '\n')); err != nil {
			return Result{}, err
		}
	}
	if err := tw.Close(); err != nil {
		return Result{}, err
	}
	if err := zw.Close(); err != nil {
		return Result{}, err
	}
	return Result{Manifest: m, Redactions: redactions}, nil
}

// addUserData adds each document of the config sources, decoded and
// redacted (never the raw user data, whose encoded parts could hide a
// secret from the redactor).
func (b Bundle) addUserData(ctx context.Context, a *archive, m *Manifest) {
	if b.UserData == nil {
		return
	}
	start := time.Now()
	docs, err := b.UserData(ctx)
	if err != nil {
		a.add(m, KindUserData, produced{err: err, took: time.Since(start), source: "config sources"})
		return
	}
	for i, d := range docs {
		a.add(m, KindUserData, produced{name: fmt.Sprintf("userdata/%02d-%s.txt", i+1, safeName(string(d.Format))),
			source: d.Source.String() + " (read as " + string(d.Format) + ")", data: d.Data})
	}
}

// archive writes redacted entries and keeps the totals.
type archive struct {
	tw         *tar.Writer
	now        time.Time
	total      int
	maxTotal   int
	redactions []Redaction
}

// add redacts p, writes it (unless empty or over the total limit) and
// records it in the manifest.
func (a *archive) add(m *Manifest, kind string, p produced) {
	it := Item{Kind: kind, Source: p.source, Command: p.command, ExitCode: p.exitCode, Truncated: p.truncated,
		DurationMS: float64(p.took.Microseconds()) / 1000, Note: p.note}
	if p.err != nil {
		it.Error = p.err.Error()
	}
	if p.data != nil && p.name != "" {
		data, findings := redact.Bytes(p.data)
		if room := a.maxTotal - a.total; len(data) > room {
			data, it.Truncated = data[:max(room, 0)], true
			it.Note = joinNote(it.Note, "cut at the bundle's size limit")
		}
		if len(data) > 0 || p.err == nil {
			if err := a.write(p.name, data); err != nil {
				it.Error = joinNote(it.Error, err.Error())
			} else {
				it.Name, it.Size = archiveDir+p.name, len(data)
				a.total += len(data)
			}
		}
		it.Redactions = len(findings)
		for _, f := range findings {
			a.redactions = append(a.redactions, Redaction{Item: archiveDir + p.name, Finding: f})
		}
	}
	m.Items = append(m.Items, it)
}

func (a *archive) write(name string, data []byte) error {
	hdr := &tar.Header{Name: archiveDir + name, Mode: 0o644, Size: int64(len(data)), ModTime: a.now, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	if err := a.tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err := a.tw.Write(data)
	return err
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// safeName keeps letters, digits, '.', '-' and '_' of s.
func safeName(s string) string {
	out := []byte(s)
	for i, c := range out {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			out[i] = '_'
		}
	}
	if len(out) == 0 {
		return "unknown"
	}
	return string(out)
}

// hasJournal reports whether this host was booted with systemd (so its
// services log to the journal; a /var/log/journal directory alone proves
// nothing) and journalctl can read it.
func (b Bundle) hasJournal(ctx context.Context, r *runner) bool {
	if _, err := os.Stat(r.path("/run/systemd/system")); err != nil {
		return false
	}
	res := b.Commands.Run(ctx, cmdrun.Cmd{Name: "journalctl", Args: []string{"--version"}, Timeout: b.commandTimeout()})
	return res.Err == nil && res.ExitCode == 0
}
