package bundle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/cmdrun"
)

// produced is one collected entry, before redaction.
type produced struct {
	name      string
	source    string
	command   string
	exitCode  *int
	data      []byte
	truncated bool
	err       error
	note      string
	took      time.Duration
}

// collector produces one or more entries of one kind.
type collector struct {
	kind string
	// host marks collectors that describe the running host (commands,
	// journal): they run only with --root /.
	host bool
	run  func(ctx context.Context, r *runner) []produced
}

// runner is the state of one bundle run shared by the collectors.
type runner struct {
	b     Bundle
	since time.Time
	now   time.Time
}

// path maps a node path under the root.
func (r *runner) path(nodePath string) string {
	return filepath.Join(r.b.Root, filepath.Clean("/"+nodePath))
}

// file reads a node file whole (up to the item limit, its start kept).
func file(kind, nodePath, name string) collector {
	return collector{kind: kind, run: func(_ context.Context, r *runner) []produced {
		return []produced{r.readFile(nodePath, name, false)}
	}}
}

// readFile reads nodePath; tail keeps the end of a file over the limit.
func (r *runner) readFile(nodePath, name string, tail bool) produced {
	p := produced{name: name, source: nodePath}
	start := time.Now()
	defer func() { p.took = time.Since(start) }()
	f, err := os.Open(r.path(nodePath))
	if err != nil {
		p.err = notPresent(err)
		return p
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		p.err = err
		return p
	}
	if st.IsDir() {
		p.err = errors.New("is a directory")
		return p
	}
	limit := int64(r.b.maxItem())
	if st.Size() > limit && tail {
		if _, err := f.Seek(-limit, io.SeekEnd); err != nil {
			p.err = err
			return p
		}
	}
	p.data, p.err = io.ReadAll(io.LimitReader(f, limit))
	p.truncated = st.Size() > limit
	return p
}

func notPresent(err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return errors.New("not present")
	}
	return err
}

// glob collects every file matching a node path pattern, under prefix.
func glob(kind, pattern, prefix string) collector {
	return collector{kind: kind, run: func(_ context.Context, r *runner) []produced {
		matches, _ := filepath.Glob(r.path(pattern))
		sort.Strings(matches)
		var out []produced
		for _, m := range matches {
			rel, err := filepath.Rel(r.path("/"), m)
			if err != nil {
				continue
			}
			nodePath := "/" + rel
			if st, err := os.Stat(m); err != nil || st.IsDir() {
				continue
			}
			out = append(out, r.readFile(nodePath, prefix+nodePath, false))
		}
		return out
	}}
}

// logFile collects the window of a log file (its end, over the limit).
func logFile(nodePath, name string) collector {
	return collector{kind: KindLog, run: func(_ context.Context, r *runner) []produced {
		p := r.readFile(nodePath, name, true)
		if p.err == nil {
			var dropped int
			p.data, dropped = Window(p.data, r.since, r.now)
			p.note = fmt.Sprintf("lines before %s dropped: %d", r.since.UTC().Format(time.RFC3339), dropped)
		}
		return []produced{p}
	}}
}

// command runs argv on the host (only with --root /).
func command(kind, name string, argv ...string) collector {
	return collector{kind: kind, host: true, run: func(ctx context.Context, r *runner) []produced {
		return []produced{r.command(ctx, name, cmdrun.Cmd{Name: argv[0], Args: argv[1:]})}
	}}
}

// command runs c bounded by the per-command limit; standard error follows
// standard output under a marker.
func (r *runner) command(ctx context.Context, name string, c cmdrun.Cmd) produced {
	c.Timeout = r.b.commandTimeout()
	if c.MaxOutput == 0 {
		c.MaxOutput = r.b.maxItem()
	}
	res := r.b.Commands.Run(ctx, c)
	p := produced{name: name, command: c.String(), data: res.Stdout, truncated: res.Truncated, err: res.Err, took: res.Duration}
	if res.Err == nil || res.ExitCode >= 0 {
		code := res.ExitCode
		p.exitCode = &code
	}
	if len(res.Stderr) > 0 {
		p.data = append(append(bytes.Clone(p.data), "\n--- standard error ---\n"...), res.Stderr...)
	}
	return p
}

// journal collects one unit's journal for the window.
func journal(unit, name string) collector {
	return collector{kind: KindLog, host: true, run: func(ctx context.Context, r *runner) []produced {
		args := []string{"--no-pager", "-o", "short-iso-precise", "--since", "@" + fmt.Sprint(r.since.Unix())}
		if unit == "kernel" {
			args = append(args, "-k")
		} else {
			args = append(args, "-u", unit)
		}
		return []produced{r.command(ctx, name, cmdrun.Cmd{Name: "journalctl", Args: args, KeepTail: true})}
	}}
}

// generated produces an entry computed in Go.
func generated(kind, name string, fn func(r *runner) ([]byte, error)) collector {
	return collector{kind: kind, run: func(_ context.Context, r *runner) []produced {
		start := time.Now()
		data, err := fn(r)
		return []produced{{name: name, data: data, err: err, took: time.Since(start)}}
	}}
}

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
		v, err := os.ReadFile(r.path("/proc/sys/" + s))
		value := strings.TrimSpace(string(v))
		if err != nil {
			value = "(" + notPresent(err).Error() + ")"
		}
		fmt.Fprintf(&b, "%s = %s\n", strings.ReplaceAll(s, "/", "."), value)
	}
	return []byte(b.String()), nil
}
