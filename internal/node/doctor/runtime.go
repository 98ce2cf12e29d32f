package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/nodeboot/nodeboot/internal/node/cmdrun"
	"github.com/nodeboot/nodeboot/internal/node/cri"
	"github.com/nodeboot/nodeboot/internal/node/render/containerd"
)

// Runtime check bounds.
const (
	criBound       = 5 * time.Second
	serviceBound   = 10 * time.Second
	logTailBytes   = 512 << 10
	errorLinesKept = 5
)

// kubeletLogFiles are where a kubelet without a journal logs (the paths
// the kubelet's own node log query reads).
var kubeletLogFiles = []string{"/var/log/kubelet.log", "/var/log/kubelet/kubelet.log", "/var/log/kubelet"}

// CRIClient is the CRI socket's version and cgroup driver.
type CRIClient interface {
	Version(ctx context.Context) (cri.Version, error)
	CgroupDriver(ctx context.Context) (string, error)
}

// ServiceState is whether the kubelet runs, and how that was learnt.
type ServiceState struct {
	// Source is "systemd" or "process table".
	Source  string
	Running bool
	// State is systemd's ActiveState/SubState or the process ID.
	State  string
	Detail string
	Err    error
}

// RuntimeEvidence is the container runtime and the kubelet service.
type RuntimeEvidence struct {
	Endpoint string
	// SocketErr is what connecting to the runtime's socket said (nil: it
	// accepts connections), apart from whether it answers a call.
	SocketErr  error
	Version    *cri.Version
	VersionErr error
	// RuntimeDriver is the runtime's cgroup driver per CRI RuntimeConfig.
	RuntimeDriver    string
	RuntimeDriverErr error
	// ConfigDriver is the driver containerd's config file selects.
	ConfigDriver string
	ConfigErr    error
	// KubeletDriver is the kubelet's cgroupDriver.
	KubeletDriver string
	Service       ServiceState
	// ErrorLines are the kubelet's last error lines, from LogSource.
	ErrorLines []string
	LogSource  string
	// ContainerdProxy are containerd's proxy settings (image pulls use them).
	ContainerdProxy []string
}

// containerdCgroupDriver reads the runc runtime's SystemdCgroup from a
// containerd config (version 2 or 3 layout): true is systemd, else cgroupfs.
func containerdCgroupDriver(data []byte) (string, error) {
	var cfg map[string]any
	if err := toml.Unmarshal(data, &cfg); err != nil {
		return "", err
	}
	plugins, _ := cfg["plugins"].(map[string]any)
	for _, name := range []string{"io.containerd.cri.v1.runtime", "io.containerd.grpc.v1.cri"} {
		ctrd, ok := dig(plugins, name, "containerd")
		if !ok {
			continue
		}
		runtime, _ := ctrd["default_runtime_name"].(string)
		if runtime == "" {
			runtime = "runc"
		}
		if opts, ok := dig(ctrd, "runtimes", runtime, "options"); ok {
			if v, ok := opts["SystemdCgroup"].(bool); ok && v {
				return cri.CgroupDriverSystemd, nil
			}
		}
		return cri.CgroupDriverCgroupfs, nil
	}
	return cri.CgroupDriverCgroupfs, nil
}

func dig(m map[string]any, keys ...string) (map[string]any, bool) {
	for _, k := range keys {
		next, ok := m[k].(map[string]any)
		if !ok {
			return nil, false
		}
		m = next
	}
	return m, true
}

// gatherRuntime collects the runtime evidence; socket is the runtime
// socket's host path.
func gatherRuntime(ctx context.Context, f Files, run cmdrun.Runner, k KubeletFacts, client CRIClient, socket string) RuntimeEvidence {
	ev := RuntimeEvidence{Endpoint: k.RuntimeEndpoint(), KubeletDriver: k.EffectiveCgroupDriver(), ContainerdProxy: proxySettings(k.ContainerdEnv)}
	if c, err := (&net.Dialer{Timeout: criBound}).DialContext(ctx, "unix", socket); err == nil {
		c.Close()
	} else {
		ev.SocketErr = err
	}
	cctx, cancel := context.WithTimeout(ctx, criBound)
	defer cancel()
	if v, err := client.Version(cctx); err == nil {
		ev.Version = &v
		ev.RuntimeDriver, ev.RuntimeDriverErr = client.CgroupDriver(cctx)
	} else {
		ev.VersionErr = err
	}
	if data, err := f.Read(containerd.ConfigPath); err == nil {
		ev.ConfigDriver, ev.ConfigErr = containerdCgroupDriver(data)
	} else {
		ev.ConfigErr = err
	}
	if filepath.Clean(f.Root) == "/" && f.Exists("/run/systemd/system") {
		ev.Service = systemdState(ctx, run)
		ev.ErrorLines, ev.LogSource = journalErrors(ctx, run)
	} else {
		ev.Service = processState(f)
		ev.ErrorLines, ev.LogSource = fileErrors(f)
	}
	return ev
}

// proxySettings lists a unit's proxy variables and where each is set.
func proxySettings(env ServiceEnv) []string {
	var out []string
	for _, name := range proxyVariables {
		if v, ok := env.Vars[name]; ok {
			out = append(out, ProxySetting{Name: name, Value: v.Value}.String()+" (from "+v.Source+")")
		}
	}
	for _, n := range append(slices.Clip(env.Problems), env.Ignored...) {
		out = append(out, "systemd ignores or fails on "+n)
	}
	return out
}

// systemdState asks systemd about kubelet.service.
func systemdState(ctx context.Context, run cmdrun.Runner) ServiceState {
	s := ServiceState{Source: "systemd"}
	res := run.Run(ctx, cmdrun.Cmd{Name: "systemctl", Args: []string{"show", "kubelet.service", "--property=ActiveState,SubState,Result,NRestarts,ExecMainStatus"}, Timeout: serviceBound})
	if res.Err != nil {
		s.Err = res.Err
		return s
	}
	props := map[string]string{}
	for _, line := range strings.Split(string(res.Stdout), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			props[k] = v
		}
	}
	s.State = props["ActiveState"] + "/" + props["SubState"]
	s.Running = props["ActiveState"] == "active" && props["SubState"] == "running"
	s.Detail = fmt.Sprintf("result %s, %s restart(s), last exit status %s", props["Result"], props["NRestarts"], props["ExecMainStatus"])
	return s
}

// processState looks for a kubelet process (no systemd on this host).
func processState(f Files) ServiceState {
	s := ServiceState{Source: "process table"}
	if _, err := f.ReadDir("/proc"); err != nil {
		s.Err = err
		return s
	}
	if pid, ok := findProcess(f, "kubelet"); ok {
		s.Running, s.State = true, fmt.Sprintf("running (pid %d)", pid)
		return s
	}
	s.State = "no kubelet process"
	return s
}

// findProcess returns the first process whose name (comm) is name.
func findProcess(f Files, name string) (int, bool) {
	entries, err := f.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, err := f.Read(fmt.Sprintf("/proc/%d/comm", pid))
		if err == nil && strings.TrimSpace(string(comm)) == name {
			return pid, true
		}
	}
	return 0, false
}

// journalErrors returns the kubelet's last error lines from the journal.
func journalErrors(ctx context.Context, run cmdrun.Runner) ([]string, string) {
	res := run.Run(ctx, cmdrun.Cmd{Name: "journalctl", Args: []string{"-u", "kubelet.service", "-n", "500", "--no-pager", "-o", "cat"}, Timeout: serviceBound})
	if res.Err != nil {
		return nil, "journal unreadable: " + res.Err.Error()
	}
	return errorLines(res.Stdout), "journal (journalctl -u kubelet.service)"
}

// fileErrors returns the kubelet's last error lines from its log file.
func fileErrors(f Files) ([]string, string) {
	r, err := f.open()
	if err != nil {
		return nil, ""
	}
	defer r.Close()
	for _, p := range kubeletLogFiles {
		fh, st, err := r.OpenRegular(p)
		if err != nil {
			continue
		}
		if st.Size() > logTailBytes {
			_, _ = fh.Seek(-logTailBytes, io.SeekEnd)
		}
		data, err := io.ReadAll(io.LimitReader(fh, logTailBytes))
		fh.Close()
		if err != nil {
			continue
		}
		return errorLines(data), p
	}
	return nil, ""
}

// errorLines keeps the last klog error lines ("E1122 10:00:00.000 ...")
// and structured error records.
func errorLines(data []byte) []string {
	var out []string
	for _, line := range bytes.Split(data, []byte("\n")) {
		if isErrorLine(line) {
			out = append(out, string(bytes.TrimSpace(line)))
		}
	}
	if len(out) > errorLinesKept {
		out = out[len(out)-errorLinesKept:]
	}
	return out
}

func isErrorLine(line []byte) bool {
	if len(line) > 5 && (line[0] == 'E' || line[0] == 'F') && isDigits(line[1:5]) {
		return true
	}
	return bytes.Contains(line, []byte(`"level":"error"`)) || bytes.Contains(line, []byte("level=error"))
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// runtimeVerdict judges the runtime socket, the cgroup drivers and the
// kubelet service.
func runtimeVerdict(ev RuntimeEvidence) Result {
	r := Result{ID: CheckRuntime, Evidence: runtimeEvidence(ev)}
	socket := strings.TrimPrefix(ev.Endpoint, "unix://")
	runtimeDriver, _ := ev.runtimeDriver()
	switch {
	case ev.VersionErr != nil:
		return runtimeUnanswered(r, ev, socket)
	case runtimeDriver != "" && runtimeDriver != ev.KubeletDriver:
		r.Verdict, r.Summary = Fail, fmt.Sprintf("cgroup driver mismatch: the kubelet uses %s, the runtime %s", ev.KubeletDriver, runtimeDriver)
		r.Action = "Make them agree: kubelet.config cgroupDriver and containerd's runc SystemdCgroup (systemd on hosts booted with systemd)."
	case ev.Service.Err != nil:
		r.Verdict, r.Summary = Warn, "cannot tell whether the kubelet runs: "+ev.Service.Err.Error()
		r.Action = "Check the kubelet by hand (systemctl status kubelet)."
	case !ev.Service.Running:
		r.Verdict, r.Summary = Fail, "the kubelet is not running: "+orUnknown(ev.Service.State)
		r.Action = "Start the kubelet (systemctl start kubelet) and read its last errors shown here."
	default:
		r.Verdict = OK
		r.Summary = fmt.Sprintf("%s %s answers on %s; the kubelet runs", ev.Version.RuntimeName, ev.Version.RuntimeVersion, socket)
		if runtimeDriver != "" {
			r.Summary += "; both use the " + runtimeDriver + " cgroup driver"
		}
	}
	return r
}

// runtimeDriver is the runtime's cgroup driver (CRI RuntimeConfig, else
// containerd's config) and where it comes from.
func (ev RuntimeEvidence) runtimeDriver() (string, string) {
	if ev.RuntimeDriverErr != nil || ev.RuntimeDriver == "" {
		return ev.ConfigDriver, containerd.ConfigPath
	}
	return ev.RuntimeDriver, "CRI RuntimeConfig"
}

// runtimeEvidence lists the runtime's answer, the drivers, the kubelet
// service, containerd's proxy and the kubelet's last errors.
func runtimeEvidence(ev RuntimeEvidence) []string {
	var out []string
	socket := strings.TrimPrefix(ev.Endpoint, "unix://")
	if ev.Version != nil {
		out = append(out, fmt.Sprintf("%s answers CRI %s: %s %s", socket, ev.Version.APIVersion, ev.Version.RuntimeName, ev.Version.RuntimeVersion))
	}
	if driver, from := ev.runtimeDriver(); driver != "" {
		out = append(out, fmt.Sprintf("cgroup driver: kubelet %s, runtime %s (from %s)", ev.KubeletDriver, driver, from))
	} else if ev.ConfigErr != nil {
		out = append(out, "runtime cgroup driver unknown: "+ev.ConfigErr.Error())
	}
	service := fmt.Sprintf("kubelet: %s (%s)", orUnknown(ev.Service.State), ev.Service.Source)
	if ev.Service.Detail != "" {
		service += "; " + ev.Service.Detail
	}
	out = append(out, service)
	if len(ev.ContainerdProxy) > 0 {
		out = append(out, "containerd's proxy settings (image pulls): "+strings.Join(ev.ContainerdProxy, "; "))
	}
	switch {
	case len(ev.ErrorLines) > 0:
		out = append(out, fmt.Sprintf("last kubelet errors (%s):\n%s", ev.LogSource, indentLines(strings.Join(ev.ErrorLines, "\n"), "  ")))
	case ev.LogSource == "":
		out = append(out, "kubelet errors: no journal and no kubelet log file ("+strings.Join(kubeletLogFiles, ", ")+") to read")
	default:
		out = append(out, "kubelet errors: none in "+ev.LogSource)
	}
	return out
}

// runtimeUnanswered tells a runtime that is not there from one that
// accepts connections and never answers (wedged).
func runtimeUnanswered(r Result, ev RuntimeEvidence, socket string) Result {
	r.Verdict = Fail
	switch {
	case ev.SocketErr != nil || netCause(ev.VersionErr) == causeRefused || errors.Is(ev.VersionErr, syscall.ENOENT):
		r.Summary = fmt.Sprintf("the container runtime is not running: nothing accepts connections on %s (%v)", socket, firstErr(ev.SocketErr, ev.VersionErr))
		r.Action = "Start containerd (systemctl start containerd) and read its log; the kubelet cannot run a pod without it."
	case netCause(ev.VersionErr) == causeTimeout:
		r.Summary = fmt.Sprintf("the container runtime is wedged: %s accepts connections but did not answer the CRI Version call within %s", socket, criBound)
		r.Action = "Before restarting it, collect what shows where it is stuck: `kill -USR1 $(pidof containerd)` writes its goroutine stacks to its log (journalctl -u containerd), then `ctr version` and `crictl info`; then restart containerd (systemctl restart containerd)."
	default:
		r.Summary = fmt.Sprintf("the container runtime on %s answers the CRI Version call with an error: %v", socket, ev.VersionErr)
		r.Action = "Read containerd's log (journalctl -u containerd): its CRI plugin may have failed to load (containerd config, snapshotter)."
	}
	return r
}
