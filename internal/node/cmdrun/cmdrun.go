// Package cmdrun runs host commands for the doctor and the support bundle:
// bounded in time and output, stdout and stderr kept apart, the exit code
// and duration recorded, and "not installed" told apart from "failed".
package cmdrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Errors wrapped by Result.Err.
var (
	// ErrNotInstalled: the command is not on PATH (or not at its path).
	ErrNotInstalled = errors.New("not installed")
	// ErrTimeout: the command ran past its bound and was killed.
	ErrTimeout = errors.New("timed out")
)

// DefaultMaxOutput bounds each of stdout and stderr when Cmd.MaxOutput is 0.
const DefaultMaxOutput = 16 << 20

// Cmd is one command to run.
type Cmd struct {
	Name string
	Args []string
	// Env replaces the environment when not nil.
	Env   []string
	Stdin []byte
	// Timeout bounds the run; 0 means only ctx does.
	Timeout time.Duration
	// MaxOutput bounds each of stdout and stderr (the first bytes are
	// kept, or the last with KeepTail); 0 means DefaultMaxOutput.
	MaxOutput int
	// KeepTail keeps the end of the output instead of its start (logs).
	KeepTail bool
	// Stdout, when set, receives standard output as it comes instead of
	// Result.Stdout (streamed to disk, never held in memory); MaxOutput
	// and KeepTail then bound standard error only.
	Stdout io.Writer
}

// String is the command line, for reports.
func (c Cmd) String() string {
	return strings.TrimSpace(c.Name + " " + strings.Join(c.Args, " "))
}

// Result is what a run produced. Err is nil when the command ran to its
// end, whatever its exit code.
type Result struct {
	Stdout, Stderr []byte
	ExitCode       int
	Duration       time.Duration
	// Truncated is true when output beyond MaxOutput was dropped.
	Truncated bool
	Err       error
}

// Runner runs commands.
type Runner interface {
	Run(ctx context.Context, c Cmd) Result
}

// Exec runs real processes.
type Exec struct{}

// Run runs c, killing it (and its process group) at the bound.
func (Exec) Run(ctx context.Context, c Cmd) Result {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	prog, ok := c.path()
	if !ok {
		return Result{ExitCode: -1, Err: fmt.Errorf("%s: %w (not on its PATH)", c.Name, ErrNotInstalled)}
	}
	limit := c.MaxOutput
	if limit <= 0 {
		limit = DefaultMaxOutput
	}
	stdout, stderr := &capped{limit: limit, tail: c.KeepTail}, &capped{limit: limit, tail: c.KeepTail}
	cmd := c.command(ctx, prog, stdout, stderr)
	start := time.Now()
	err := cmd.Run()
	res := Result{Stdout: stdout.bytes(), Stderr: stderr.bytes(), Duration: time.Since(start), ExitCode: -1}
	res.Truncated = stdout.dropped || stderr.dropped
	if cmd.ProcessState != nil {
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	res.Err = c.runError(ctx, cmd, err, res.Duration)
	return res
}

// command builds the process: its own process group, killed whole at the
// bound, so that a plugin's children cannot keep the pipes open past it.
func (c Cmd) command(ctx context.Context, prog string, stdout, stderr io.Writer) *exec.Cmd {
	cmd := exec.CommandContext(ctx, prog, c.Args...)
	cmd.Env = c.Env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if c.Stdout != nil {
		cmd.Stdout = c.Stdout
	}
	if c.Stdin != nil {
		cmd.Stdin = bytes.NewReader(c.Stdin)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	return cmd
}

// runError classifies how a run ended: nil when the command ran to its
// end (whatever its exit code), not installed, timed out, or failed.
func (c Cmd) runError(ctx context.Context, cmd *exec.Cmd, err error, took time.Duration) error {
	var exitErr *exec.ExitError
	switch {
	case err == nil, errors.As(err, &exitErr) && ctx.Err() == nil:
		return nil
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, syscall.ENOENT) && cmd.ProcessState == nil:
		return fmt.Errorf("%s: %w", c.Name, ErrNotInstalled)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%s: %w after %s", c.Name, ErrTimeout, took.Round(time.Millisecond))
	}
	return fmt.Errorf("%s: %w", c.Name, err)
}

// path is the program to run: Name as it is when it holds a "/" or Env
// sets no PATH, else Name looked up in Env's PATH, so that a command runs from
// where the environment it gets would find it (a kubelet's exec plugin
// is found on the kubelet's PATH, not on the caller's).
func (c Cmd) path() (string, bool) {
	if c.Env == nil || strings.Contains(c.Name, "/") {
		return c.Name, true
	}
	pathVar, set := "", false
	for _, kv := range c.Env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathVar, set = v, true
		}
	}
	if !set {
		return c.Name, true
	}
	for _, dir := range filepath.SplitList(pathVar) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, c.Name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

// capped keeps the first (or, with tail, the last) limit bytes written
// and notes that the rest was dropped.
type capped struct {
	buf     bytes.Buffer
	limit   int
	tail    bool
	dropped bool
}

func (c *capped) Write(p []byte) (int, error) {
	if c.tail {
		c.buf.Write(p)
		if c.buf.Len() > 2*c.limit { // trim now and then, not on every write
			c.buf.Next(c.buf.Len() - c.limit)
			c.dropped = true
		}
		return len(p), nil
	}
	if room := c.limit - c.buf.Len(); room < len(p) {
		c.dropped = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.buf.Write(p)
}

func (c *capped) bytes() []byte {
	b := c.buf.Bytes()
	if c.tail && len(b) > c.limit {
		c.dropped = true
		b = b[len(b)-c.limit:]
	}
	return b
}
