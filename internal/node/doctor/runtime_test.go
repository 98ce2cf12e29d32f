package doctor

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/cmdrun"
	"github.com/nodeboot/nodeboot/internal/node/cri"
)

func TestRuntimeVerdict(t *testing.T) {
	v := &cri.Version{APIVersion: "v1", RuntimeName: "containerd", RuntimeVersion: "1.7.27"}
	running := ServiceState{Source: "systemd", Running: true, State: "active/running"}
	base := func(f func(*RuntimeEvidence)) RuntimeEvidence {
		ev := RuntimeEvidence{Endpoint: "unix:///run/containerd/containerd.sock", Version: v, RuntimeDriverErr: cri.ErrUnimplemented,
			ConfigDriver: "systemd", KubeletDriver: "systemd", Service: running, LogSource: "journal"}
		if f != nil {
			f(&ev)
		}
		return ev
	}
	checkVerdicts(t, CheckRuntime, []verdictCase{
		{name: "healthy", got: runtimeVerdict(base(nil)), verdict: OK, summary: []string{"containerd 1.7.27", "systemd cgroup driver"},
			evidence: []string{"from /etc/containerd/config.toml", "none in journal"}},
		{name: "runtime down", got: runtimeVerdict(base(func(e *RuntimeEvidence) {
			e.Version, e.VersionErr, e.SocketErr = nil, errors.New("dial unix: connect: no such file"), errors.New("dial unix: connect: no such file")
		})),
			verdict: Fail, summary: []string{"not running", "/run/containerd/containerd.sock"}},
		{name: "runtime wedged: accepts, never answers", got: runtimeVerdict(base(func(e *RuntimeEvidence) {
			e.Version, e.VersionErr = nil, context.DeadlineExceeded
		})),
			verdict: Fail, summary: []string{"wedged", "accepts connections but did not answer"}},
		{name: "drivers disagree (config file)", got: runtimeVerdict(base(func(e *RuntimeEvidence) { e.KubeletDriver = "cgroupfs" })),
			verdict: Fail, summary: []string{"mismatch", "kubelet uses cgroupfs", "runtime systemd"}},
		{name: "drivers disagree (CRI RuntimeConfig wins)", got: runtimeVerdict(base(func(e *RuntimeEvidence) {
			e.RuntimeDriver, e.RuntimeDriverErr = "cgroupfs", nil
		})), verdict: Fail, summary: []string{"runtime cgroupfs"}, evidence: []string{"from CRI RuntimeConfig"}},
		{name: "kubelet stopped, with its last errors", got: runtimeVerdict(base(func(e *RuntimeEvidence) {
			e.Service = ServiceState{Source: "systemd", State: "failed/failed", Detail: "result exit-code"}
			e.ErrorLines = []string{`E1122 10:00:00.000000 1 run.go:72] "command failed" err="failed to run Kubelet: validate service connection"`}
		})), verdict: Fail, summary: []string{"not running: failed/failed"}, evidence: []string{"failed to run Kubelet"}},
		{name: "service state unknown", got: runtimeVerdict(base(func(e *RuntimeEvidence) { e.Service = ServiceState{Source: "systemd", Err: errors.New("bus")} })),
			verdict: Warn, summary: []string{"cannot tell"}},
	})
}

func TestContainerdCgroupDriver(t *testing.T) {
	for name, tc := range map[string]struct{ config, want string }{
		"v2 systemd": {`version = 2
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
SystemdCgroup = true`, "systemd"},
		"v2 cgroupfs": {`version = 2
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
SystemdCgroup = false`, "cgroupfs"},
		"v3 systemd": {`version = 3
[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
SystemdCgroup = true`, "systemd"},
		"another default runtime": {`version = 2
[plugins."io.containerd.grpc.v1.cri".containerd]
default_runtime_name = "nvidia"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
SystemdCgroup = false
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
SystemdCgroup = true`, "systemd"},
		"containerd's default": {`version = 2`, "cgroupfs"},
	} {
		got, err := containerdCgroupDriver([]byte(tc.config))
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, tc.want)
		}
	}
	if _, err := containerdCgroupDriver([]byte("[broken")); err == nil {
		t.Error("broken TOML accepted")
	}
}

func TestErrorLines(t *testing.T) {
	log := `I1122 10:00:00.000000 1 server.go:1] "Starting"
E1122 10:00:01.000000 1 kubelet.go:1] "one"
W1122 10:00:02.000000 1 kubelet.go:1] "warning"
E1122 10:00:03.000000 1 kubelet.go:1] "two"
time=2026-11-22T10:00:04Z level=error msg="three"
{"ts":1,"level":"error","msg":"four"}
E1122 10:00:05.000000 1 kubelet.go:1] "five"
F1122 10:00:06.000000 1 kubelet.go:1] "six"
Error: this is not a klog line
`
	got := errorLines([]byte(log))
	if len(got) != 5 || !strings.Contains(got[0], `"two"`) || !strings.Contains(got[4], `"six"`) {
		t.Errorf("errorLines = %q", got)
	}
}

// fakeCRI answers like a runtime.
type fakeCRI struct {
	v   cri.Version
	err error
}

func (f fakeCRI) Version(context.Context) (cri.Version, error) { return f.v, f.err }
func (f fakeCRI) CgroupDriver(context.Context) (string, error) { return "", cri.ErrUnimplemented }

func TestGatherRuntimeWithoutSystemd(t *testing.T) {
	root := t.TempDir()
	write(t, root, "/proc/1/comm", "init\n")
	write(t, root, "/proc/4242/comm", "kubelet\n")
	write(t, root, "/proc/self/comm", "doctor\n")
	write(t, root, "/var/log/kubelet.log", "I1122 ok\nE1122 10:00:00.000000 1 x.go:1] \"boom\"\n")
	write(t, root, "/etc/containerd/config.toml", "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options]\nSystemdCgroup = false\n")
	ev := gatherRuntime(context.Background(), Files{Root: root}, fakeRunner{}, KubeletFacts{}, fakeCRI{v: cri.Version{RuntimeName: "containerd"}}, "/nonexistent.sock")
	want := ServiceState{Source: "process table", Running: true, State: "running (pid 4242)"}
	if !reflect.DeepEqual(ev.Service, want) || ev.ConfigDriver != "cgroupfs" || ev.KubeletDriver != "cgroupfs" ||
		ev.LogSource != "/var/log/kubelet.log" || len(ev.ErrorLines) != 1 || ev.Endpoint != "unix:///run/containerd/containerd.sock" {
		t.Errorf("evidence %+v", ev)
	}
	if r := runtimeVerdict(ev); r.Verdict != OK {
		t.Errorf("verdict %+v", r)
	}
	if err := os.Remove(filepath.Join(root, "proc/4242/comm")); err != nil {
		t.Fatal(err)
	}
	ev = gatherRuntime(context.Background(), Files{Root: root}, fakeRunner{}, KubeletFacts{}, fakeCRI{err: errors.New("no socket")}, "/nonexistent.sock")
	if ev.Service.Running || ev.VersionErr == nil {
		t.Errorf("evidence %+v", ev)
	}
}

func TestSystemdState(t *testing.T) {
	run := fakeRunner{"systemctl": {Stdout: []byte("ActiveState=activating\nSubState=auto-restart\nResult=exit-code\nNRestarts=7\nExecMainStatus=1\n")},
		"journalctl": {Stdout: []byte("E1122 10:00:00.000000 1 x.go:1] \"boom\"\n")}}
	s := systemdState(context.Background(), run)
	if s.Running || s.State != "activating/auto-restart" || !strings.Contains(s.Detail, "7 restart(s)") {
		t.Errorf("state %+v", s)
	}
	if lines, src := journalErrors(context.Background(), run); len(lines) != 1 || !strings.HasPrefix(src, "journal") {
		t.Errorf("journal errors %q from %s", lines, src)
	}
	if s := systemdState(context.Background(), fakeRunner{}); s.Err == nil || !errors.Is(s.Err, cmdrun.ErrNotInstalled) {
		t.Errorf("state without systemctl %+v", s)
	}
}

func write(t *testing.T, root, p, data string) {
	t.Helper()
	full := filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWedgedRuntime: a socket that accepts connections and never answers
// (a wedged containerd) is told apart from a runtime that is not there.
func TestWedgedRuntime(t *testing.T) {
	dir := t.TempDir()
	socket := filepath.Join(dir, "containerd.sock")
	l, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	ev := gatherRuntime(ctx, Files{Root: dir}, fakeRunner{}, KubeletFacts{}, cri.New(socket, criBound), socket)
	if r := runtimeVerdict(ev); r.Verdict != Fail || !strings.Contains(r.Summary, "wedged") || !strings.Contains(r.Action, "kill -USR1") {
		t.Errorf("verdict %+v (socket %v, version %v)", r, ev.SocketErr, ev.VersionErr)
	}
	gone := filepath.Join(dir, "absent.sock")
	ev = gatherRuntime(context.Background(), Files{Root: dir}, fakeRunner{}, KubeletFacts{}, cri.New(gone, criBound), gone)
	if r := runtimeVerdict(ev); r.Verdict != Fail || !strings.Contains(r.Summary, "not running") {
		t.Errorf("verdict %+v", r)
	}
}

// TestNoClockFromAnUnverifiedServer: the API server's Date counts only
// once its chain verified; otherwise the metadata service's is used.
func TestNoClockFromAnUnverifiedServer(t *testing.T) {
	now := time.Now()
	imds := ClockSample{Reference: "instance metadata service", Date: now, Sent: now, Received: now}
	api := ClockSample{Reference: "API server", Date: now.Add(time.Hour), Sent: now, Received: now}
	ev := evidence{imds: IMDSEvidence{Clock: imds}, endpoint: EndpointEvidence{Clock: api, VerifyErr: errors.New("x509: unknown authority")}}
	if got := clockSample(ev); got.Reference != imds.Reference {
		t.Errorf("clock judged from %s", got.Reference)
	}
}
