package bundle

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/inroot"
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
// temporary file renamed into place), every node path read and written
// inside Root. It refuses to start when the target file system has less
// than MinFreeBytes free. When ctx ends (a signal) or the run reaches
// RunTimeout, the items not collected yet are listed as skipped and the
// archive is still written; an interrupted run also returns an error.
func (b Bundle) Write(ctx context.Context) (Result, error) {
	b = b.withDefaults()
	out := filepath.Clean("/" + b.Out)
	if err := b.checkSpace(filepath.Dir(filepath.Join(b.Root, out))); err != nil {
		return Result{}, err
	}
	root, err := inroot.Open(b.Root)
	if err != nil {
		return Result{}, fmt.Errorf("bundle: %w", err)
	}
	defer root.Close()
	dir, err := root.MkdirAll(path.Dir(out), 0o755)
	if err != nil {
		return Result{}, fmt.Errorf("bundle directory: %w", err)
	}
	defer dir.Close()
	res, err := b.writeIn(ctx, root, dir, path.Base(out))
	if err != nil {
		return Result{}, fmt.Errorf("write bundle %s: %w", b.Out, err)
	}
	res.Path = filepath.Join(b.Root, out)
	if cause := ctx.Err(); cause != nil {
		return res, fmt.Errorf("%w: a partial bundle was written to %s", cause, res.Path)
	}
	return res, nil
}

// writeIn writes the archive to a temporary file in dir, renamed to name.
func (b Bundle) writeIn(ctx context.Context, root *inroot.Root, dir *inroot.Dir, name string) (Result, error) {
	tmp, tmpName, err := dir.CreateTemp(inroot.TempPrefix(name), 0o600)
	if err != nil {
		return Result{}, err
	}
	defer func() { _ = dir.Remove(tmpName) }() // fails once renamed
	raw, red, err := spools(dir)
	if err != nil {
		tmp.Close()
		return Result{}, err
	}
	defer raw.f.Close()
	defer red.f.Close()
	res, err := b.writeArchive(ctx, tmp, &runner{b: b, root: root, raw: raw}, red)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = dir.Rename(tmpName, name)
	}
	return res, err
}

// spools makes the two scratch files of a run, next to the bundle.
func spools(dir *inroot.Dir) (raw, red *spool, err error) {
	a, err := dir.Scratch()
	if err != nil {
		return nil, nil, err
	}
	b, err := dir.Scratch()
	if err != nil {
		a.Close()
		return nil, nil, err
	}
	return &spool{f: a}, &spool{f: b}, nil
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

// errRunLimit is the cause of the run's own deadline.
var errRunLimit = errors.New("the run reached its time limit")

// writeArchive collects everything into w: the doctor report, the
// collectors, the user data, then the redactions and the manifest.
func (b Bundle) writeArchive(ctx context.Context, w io.Writer, r *runner, red *spool) (Result, error) {
	start := b.Now()
	ctx, cancel := context.WithTimeoutCause(ctx, b.RunTimeout, fmt.Errorf("%w of %s", errRunLimit, b.RunTimeout))
	defer cancel()
	r.now, r.since = start, start.Add(-b.Since)
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	m := b.manifest(start, r.since)
	a := &archive{tw: tw, now: start, since: r.since, maxItem: int64(b.maxItem()), maxTotal: int64(b.MaxTotalBytes), red: red, m: &m}
	host := filepath.Clean(b.Root) == "/"
	journal := host && b.hasJournal(ctx)
	m.Logs = logSource(journal)
	if !host {
		m.Notes = append(m.Notes, "host commands and the journal were not collected: --root is not /")
	}
	b.addReport(ctx, a)
	b.collect(ctx, a, r, collectors(journal), host)
	b.addUserData(ctx, a)
	m.Duration = b.Now().Sub(start).Round(time.Millisecond).String()
	if err := a.meta(); err != nil {
		return Result{}, err
	}
	if err := tw.Close(); err != nil {
		return Result{}, err
	}
	if err := zw.Close(); err != nil {
		return Result{}, err
	}
	return Result{Manifest: m, Redactions: a.redactions}, nil
}

// manifest starts the manifest of a run that began at start.
func (b Bundle) manifest(start, since time.Time) Manifest {
	return Manifest{Tool: b.Tool, Created: start.UTC(), Root: b.Root, Window: LogWindow{Since: since.UTC(), Until: start.UTC()},
		Limits: Limits{CommandTimeout: b.commandTimeout().String(), RunTimeout: b.RunTimeout.String(),
			MaxItemBytes: b.maxItem(), MaxTotalBytes: b.MaxTotalBytes, MinFreeBytes: b.MinFreeBytes, MaxLineBytes: redact.MaxLine}}
}

func logSource(journal bool) string {
	if journal {
		return "systemd journal"
	}
	return "files under /var/log: no systemd journal on this host (the window applies to timestamped lines)"
}

// addReport adds the doctor's report, as text and JSON.
func (b Bundle) addReport(ctx context.Context, a *archive) {
	if b.Report == nil {
		a.m.Notes = append(a.m.Notes, "no doctor report")
		return
	}
	start := time.Now()
	rep := b.Report(ctx)
	a.m.Node = rep.Node
	a.add(ctx, KindReport, entry{name: "doctor/report.txt", body: bytesReader(rep.Text()), start: start})
	js, err := rep.JSON()
	a.add(ctx, KindReport, entry{name: "doctor/report.json", body: bytesReader(js), err: err, start: start})
}

// collect runs the collectors in order; once ctx is done, the rest are
// listed as skipped, with why.
func (b Bundle) collect(ctx context.Context, a *archive, r *runner, cs []collector, host bool) {
	for _, c := range cs {
		if c.host && !host {
			continue
		}
		if ctx.Err() != nil {
			a.m.Items = append(a.m.Items, Item{Kind: c.kind, Error: "skipped: " + context.Cause(ctx).Error()})
			continue
		}
		c.run(ctx, r, func(e entry) { a.add(ctx, c.kind, e) })
	}
}

// addUserData adds each document of the config sources, decoded and
// redacted (never the raw user data, whose encoded parts could hide a
// secret from the redactor).
func (b Bundle) addUserData(ctx context.Context, a *archive) {
	if b.UserData == nil {
		return
	}
	start := time.Now()
	docs, err := b.UserData(ctx)
	if err != nil {
		a.add(ctx, KindUserData, entry{err: err, start: start, source: "config sources"})
		return
	}
	for i, d := range docs {
		a.add(ctx, KindUserData, entry{name: fmt.Sprintf("userdata/%02d-%s.txt", i+1, safeName(string(d.Format))),
			source: d.Source.String() + " (read as " + string(d.Format) + ")", body: bytesReader(d.Data), start: start})
	}
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
func (b Bundle) hasJournal(ctx context.Context) bool {
	if _, err := os.Stat(filepath.Join(b.Root, "run/systemd/system")); err != nil {
		return false
	}
	res := b.Commands.Run(ctx, cmdrun.Cmd{Name: "journalctl", Args: []string{"--version"}, Timeout: b.commandTimeout()})
	return res.Err == nil && res.ExitCode == 0
}
