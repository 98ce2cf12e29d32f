//go:build e2e

package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// process is one daemon the harness started. It is stopped by its PID and
// its combined output goes to a log file printed when a test fails.
type process struct {
	name    string
	argv    []string
	logPath string
	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error
}

// procSpec describes a daemon to start.
type procSpec struct {
	name string
	argv []string
	env  []string // appended to the harness environment; later entries win
	// clean starts the process with env alone, as systemd starts a service.
	clean bool
	dir   string
}

// startProcess starts spec in its own process group with output to
// logDir/<name>.log. It does not wait for readiness.
func startProcess(logDir string, spec procSpec) (*process, error) {
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return nil, fmt.Errorf("log dir: %w", err)
	}
	logPath := filepath.Join(logDir, spec.name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s log: %w", spec.name, err)
	}
	cmd := exec.Command(spec.argv[0], spec.argv[1:]...)
	cmd.Env = append(os.Environ(), spec.env...)
	if spec.clean {
		cmd.Env = spec.env
	}
	cmd.Dir = spec.dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Own process group so a terminal ^C reaches the test only, and
	// Pdeathsig so a crashed test run does not leave daemons behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", spec.name, err)
	}
	p := &process{name: spec.name, argv: spec.argv, logPath: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// pid returns the process ID.
func (p *process) pid() int { return p.cmd.Process.Pid }

// exited reports whether the process has ended, and how.
func (p *process) exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.waitErr
	default:
		return false, nil
	}
}

// errExitedEarly is returned by waits when a daemon died while waited on.
var errExitedEarly = errors.New("process exited")

// aliveErr returns an error wrapping errExitedEarly if p has ended.
func (p *process) aliveErr() error {
	if ended, err := p.exited(); ended {
		return fmt.Errorf("%s (pid %d): %w: %v; log %s", p.name, p.pid(), errExitedEarly, err, p.logPath)
	}
	return nil
}

// stop sends SIGTERM to the PID, waits up to grace, then SIGKILLs it.
// It returns how long the shutdown took.
func (p *process) stop(grace time.Duration) time.Duration {
	start := time.Now()
	if ended, _ := p.exited(); ended {
		return 0
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	return time.Since(start)
}

// tail returns the last n lines of the process log.
func (p *process) tail(n int) string {
	return tailFile(p.logPath, n)
}

func tailFile(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// processGroup owns the daemons of one fixture: it stops them in reverse
// start order and prints their logs when the test failed.
type processGroup struct {
	logDir string
	procs  []*process
}

// start starts spec and registers it for stop and log dumping.
func (g *processGroup) start(t *testing.T, spec procSpec) *process {
	t.Helper()
	p, err := startProcess(g.logDir, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("started %s (pid %d): %s", spec.name, p.pid(), shortArgv(spec.argv))
	g.procs = append(g.procs, p)
	return p
}

// stopAll stops every process, newest first.
func (g *processGroup) stopAll(t *testing.T, grace time.Duration) {
	for i := len(g.procs) - 1; i >= 0; i-- {
		p := g.procs[i]
		if d := p.stop(grace); d > 0 {
			t.Logf("stopped %s (pid %d) in %s", p.name, p.pid(), d.Round(time.Millisecond))
		}
	}
}

// dumpLogs prints the tail of every log.
func (g *processGroup) dumpLogs(t *testing.T, lines int) {
	for _, p := range g.procs {
		t.Logf("===== %s (pid %d) last %d lines of %s =====\n%s", p.name, p.pid(), lines, p.logPath, p.tail(lines))
	}
}

func shortArgv(argv []string) string {
	s := strings.Join(argv, " ")
	if len(s) > 300 {
		return s[:300] + " …"
	}
	return s
}
