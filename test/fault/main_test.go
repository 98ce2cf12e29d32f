package fault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/cli"
	"github.com/nodeboot/nodeboot/internal/testing/gobuild"
	"github.com/nodeboot/nodeboot/internal/testing/nodetest"
)

// binary is nodeboot built with -tags faultinject.
var binary string

// hangBound is how long the suite lets one nodeboot process run before
// calling it a hang. Every run ends by its own --timeout (5 min by default,
// 10 s where a test sets it) long before: the bound only catches a process
// that ignores its deadline, never a slow one on a loaded machine.
const hangBound = 2 * cli.DefaultTimeout

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "nodeboot-fault-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "nodeboot")
	if err := gobuild.Build(context.Background(), ".", binary, "../../cmd/nodeboot", "faultinject"); err != nil {
		panic(err)
	}
	code := m.Run()
	fmt.Println(stats.String())
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// stats are the suite's counts, printed at the end.
var stats counts

// counts are what the suite ran and saw.
type counts struct {
	mu         sync.Mutex
	inputs     map[string]bool // distinct inputs (configurations, sources)
	faults     int
	runs       int
	rejections int // runs that had to fail, and did (exit 1)
	maxWait    time.Duration
	maxWaitOf  string
	peakRSSKiB int64
}

func (c *counts) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fmt.Sprintf("fault suite: %d inputs, %d faults, %d runs (nodeboot, the bootstrap.sh shim) of which %d rejections (exit 1 as required); "+
		"longest run %s (%s); peak RSS of any run %.1f MiB",
		len(c.inputs), c.faults, c.runs, c.rejections, c.maxWait.Round(time.Millisecond), c.maxWaitOf, float64(c.peakRSSKiB)/1024)
}

func countInput(name string) {
	stats.mu.Lock()
	defer stats.mu.Unlock()
	if stats.inputs == nil {
		stats.inputs = map[string]bool{}
	}
	stats.inputs[name] = true
}

func countFault() {
	stats.mu.Lock()
	defer stats.mu.Unlock()
	stats.faults++
}

func countRun(what string, o outcome, rejected bool) {
	stats.mu.Lock()
	defer stats.mu.Unlock()
	stats.runs++
	if rejected {
		stats.rejections++
	}
	if o.took > stats.maxWait {
		stats.maxWait, stats.maxWaitOf = o.took, what
	}
	stats.peakRSSKiB = max(stats.peakRSSKiB, o.rssKiB)
}

// outcome is how one nodeboot process ended.
type outcome struct {
	code   int
	stdout string
	stderr string
	took   time.Duration
	rssKiB int64 // peak resident set size
}

// proc is a running nodeboot.
type proc struct {
	cmd    *exec.Cmd
	stdout nodetest.SyncBuffer
	stderr nodetest.SyncBuffer
	start  time.Time
	done   chan struct{} // closed when the process ended
	err    error         // of Wait, once done
	took   time.Duration
}

// start runs nodeboot with args in env.
func start(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(binary, args...), start: time.Now(), done: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		p.took = time.Since(p.start)
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// wait returns how the process ended; a process still running after
// hangBound is killed and fails the test (a hang).
func (p *proc) wait(t *testing.T) outcome {
	t.Helper()
	return p.waitWithin(t, hangBound)
}

// waitWithin is wait with another hang bound.
func (p *proc) waitWithin(t *testing.T, bound time.Duration) outcome {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(bound):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("nodeboot %s still running after %s: unbounded\n%s", strings.Join(p.cmd.Args[1:], " "), bound, p.stderr.String())
	}
	o := outcome{stdout: p.stdout.String(), stderr: p.stderr.String(), took: p.took}
	var exit *exec.ExitError
	switch {
	case errors.As(p.err, &exit):
		o.code = exit.ExitCode()
	case p.err != nil:
		t.Fatal(p.err)
	}
	if ru, ok := p.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		o.rssKiB = ru.Maxrss
	}
	return o
}

// waitFor waits until the process's stderr contains s; it fails the test
// when the process ends without saying it (or, a hang, after
// hangBound).
func (p *proc) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.After(hangBound)
	for !strings.Contains(p.stderr.String(), s) {
		select {
		case <-p.done:
			if !strings.Contains(p.stderr.String(), s) {
				t.Fatalf("nodeboot ended without saying %q:\n%s", s, p.stderr.String())
			}
		case <-deadline:
			t.Fatalf("nodeboot did not say %q within %s:\n%s", s, hangBound, p.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// run runs nodeboot to its end and counts it; wantCode is the exit code the
// fault must produce (1 counts as a rejection).
func run(t *testing.T, env []string, wantCode int, args ...string) outcome {
	t.Helper()
	o := start(t, env, args...).wait(t)
	countRun(t.Name(), o, wantCode == 1)
	if o.code != wantCode {
		t.Fatalf("nodeboot %s: exit %d, want %d\n%s", strings.Join(args, " "), o.code, wantCode, o.stderr)
	}
	return o
}
