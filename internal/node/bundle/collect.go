package bundle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nodeboot/nodeboot/internal/inroot"
	"github.com/nodeboot/nodeboot/internal/node/cmdrun"
)

// maxGlobMatches bounds the files one pattern collects.
const maxGlobMatches = 200

// collector produces the entries of one kind, handing each to emit as it
// comes (emit streams it into the archive before the next is opened).
type collector struct {
	kind string
	// host marks collectors that describe the running host (commands,
	// journal): they run only with --root /.
	host bool
	run  func(ctx context.Context, r *runner, emit func(entry))
}

// runner is the state of one bundle run shared by the collectors.
type runner struct {
	b     Bundle
	root  *inroot.Root
	since time.Time
	now   time.Time
	// raw receives a command's standard output.
	raw *spool
}

// path maps a node path to the host (for statfs only: every read goes
// through root).
func (r *runner) path(nodePath string) string {
	return filepath.Join(r.b.Root, filepath.Clean("/"+nodePath))
}

// open opens a node file for streaming: a regular file only, symbolic
// links followed inside the root.
func (r *runner) open(nodePath string) (*os.File, fs.FileInfo, error) {
	f, fi, err := r.root.OpenRegular(nodePath)
	return f, fi, notPresent(err)
}

func notPresent(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("not present")
	case errors.Is(err, inroot.ErrNotRegular):
		return fmt.Errorf("refused: %w", err)
	}
	return err
}

// file collects a node file (its start, up to the item limit).
func file(kind, nodePath, name string) collector {
	return collector{kind: kind, run: func(_ context.Context, r *runner, emit func(entry)) {
		r.emitFile(nodePath, name, false, emit)
	}}
}

// emitFile streams nodePath; tail keeps the end of a file over the item
// limit and applies the log window.
func (r *runner) emitFile(nodePath, name string, tail bool, emit func(entry)) {
	e := entry{name: name, source: nodePath, start: time.Now(), window: tail}
	f, fi, err := r.open(nodePath)
	if err != nil {
		e.err = err
		emit(e)
		return
	}
	defer f.Close()
	limit := int64(r.b.maxItem())
	if e.truncated = fi.Size() > limit; e.truncated && tail {
		if _, err := f.Seek(-limit, io.SeekEnd); err != nil {
			e.err = err
			emit(e)
			return
		}
		e.cutStart, e.lineStart = true, byteAt(f, fi.Size()-limit-1) == '\n'

	}
	e.body = f
	emit(e)
}

// byteAt is the byte at off in f (0 when it cannot be read).
func byteAt(f io.ReaderAt, off int64) byte {
	var b [1]byte
	if off < 0 {
		return 0
	}
	if _, err := f.ReadAt(b[:], off); err != nil {
		return 0
	}
	return b[0]
}

// glob collects every regular file matching a node path pattern (the
// pattern in its last element only), under prefix.
func glob(kind, pattern, prefix string) collector {
	return collector{kind: kind, run: func(_ context.Context, r *runner, emit func(entry)) {
		names, more := r.matches(pattern)
		for _, nodePath := range names {
			r.emitFile(nodePath, prefix+nodePath, false, emit)
		}
		if more > 0 {
			emit(entry{source: pattern, note: fmt.Sprintf("%d more files match; not collected", more)})
		}
	}}
}

// matches lists the node paths matching pattern, sorted, without
// directories, at most maxGlobMatches (and how many more there were).
func (r *runner) matches(pattern string) ([]string, int) {
	dir, base := path.Split(pattern)
	d, err := r.root.Dir(path.Clean(dir))
	if err != nil {
		return nil, 0
	}
	defer d.Close()
	entries, err := d.ReadDir()
	if err != nil {
		return nil, 0
	}
	var out []string
	for _, e := range entries {
		if ok, _ := path.Match(base, e.Name()); ok && !e.IsDir() {
			out = append(out, d.Join(e.Name()))
		}
	}
	slices.Sort(out)
	if len(out) > maxGlobMatches {
		return out[:maxGlobMatches], len(out) - maxGlobMatches
	}
	return out, 0
}

// logFile collects the window of a log file (its end, over the limit).
func logFile(nodePath, name string) collector {
	return collector{kind: KindLog, run: func(_ context.Context, r *runner, emit func(entry)) {
		r.emitFile(nodePath, name, true, emit)
	}}
}

// command runs argv on the host (only with --root /).
func command(kind, name string, argv ...string) collector {
	return collector{kind: kind, host: true, run: func(ctx context.Context, r *runner, emit func(entry)) {
		emit(r.command(ctx, name, cmdrun.Cmd{Name: argv[0], Args: argv[1:]}))
	}}
}

// stderrBound bounds a command's standard error, kept in memory.
const stderrBound = 1 << 20

// command runs c bounded by the per-command limit, its standard output
// streamed into the raw spool (its end kept with c.KeepTail); standard
// error follows standard output under a marker.
func (r *runner) command(ctx context.Context, name string, c cmdrun.Cmd) entry {
	e := entry{name: name, command: c.String(), start: time.Now()}
	if err := r.raw.reset(int64(r.b.maxItem()), c.KeepTail); err != nil {
		e.err = err
		return e
	}
	c.Timeout, c.MaxOutput, c.Stdout = r.b.commandTimeout(), stderrBound, r.raw
	res := r.b.Commands.Run(ctx, c)
	if len(res.Stdout) > 0 { // a runner that does not stream
		_, _ = r.raw.Write(res.Stdout)
	}
	e.err = res.Err
	if res.Err == nil || res.ExitCode >= 0 {
		code := res.ExitCode
		e.exitCode = &code
	}
	body := r.raw.reader()
	e.truncated, e.cutStart = r.raw.dropped || res.Truncated, c.KeepTail && r.raw.dropped
	e.lineStart = r.raw.lineStart
	if len(res.Stderr) > 0 {
		body = io.MultiReader(body, strings.NewReader("\n--- standard error ---\n"), bytes.NewReader(res.Stderr))
	}
	e.body = body
	return e
}

// journal collects one unit's journal for the window.
func journal(unit, name string) collector {
	return collector{kind: KindLog, host: true, run: func(ctx context.Context, r *runner, emit func(entry)) {
		args := []string{"--no-pager", "-o", "short-iso-precise", "--since", "@" + fmt.Sprint(r.since.Unix())}
		if unit == "kernel" {
			args = append(args, "-k")
		} else {
			args = append(args, "-u", unit)
		}
		e := r.command(ctx, name, cmdrun.Cmd{Name: "journalctl", Args: args, KeepTail: true})
		if e.body != nil {
			e.body = newSplitEntryJoiner(e.body, r.journalLineMax())
		}
		emit(e)
	}}
}

// journalLineMax is journald's LineMax on the node (/etc/systemd/journald.conf;
// its drop-ins are not read).
func (r *runner) journalLineMax() int {
	if r.root == nil {
		return defaultLineMax
	}
	f, _, err := r.open("/etc/systemd/journald.conf")
	if err != nil {
		return defaultLineMax
	}
	defer f.Close()
	conf, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	return lineMaxOf(conf)
}

// generated produces an entry computed in Go.
func generated(kind, name string, fn func(r *runner) ([]byte, error)) collector {
	return collector{kind: kind, run: func(_ context.Context, r *runner, emit func(entry)) {
		start := time.Now()
		data, err := fn(r)
		e := entry{name: name, err: err, start: start}
		if data != nil {
			e.body = bytes.NewReader(data)
		}
		emit(e)
	}}
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// sysctls are the kernel settings worth seeing next to a node problem.
var sysctls = []string{
	"net/ipv4/ip_forward", "net/ipv6/conf/all/forwarding", "net/bridge/bridge-nf-call-iptables",
	"net/bridge/bridge-nf-call-ip6tables", "net/ipv4/conf/all/rp_filter", "net/ipv4/ip_local_port_range",
	"net/netfilter/nf_conntrack_max", "net/core/somaxconn", "vm/overcommit_memory", "vm/panic_on_oom",
	"vm/max_map_count", "kernel/panic", "kernel/panic_on_oops", "kernel/pid_max", "kernel/keys/root_maxkeys",
	"kernel/keys/root_maxbytes", "fs/inotify/max_user_instances", "fs/inotify/max_user_watches", "fs/file-max",
}

func readSysctls(r *runner) ([]byte, error) {
	var b strings.Builder
	for _, s := range sysctls {
		v, err := r.root.ReadFile("/proc/sys/"+s, 4096)
		value := strings.TrimSpace(string(v))
		if err != nil {
			value = "(" + notPresent(err).Error() + ")"
		}
		fmt.Fprintf(&b, "%s = %s\n", strings.ReplaceAll(s, "/", "."), value)
	}
	return []byte(b.String()), nil
}
