//go:build nodeadmbench

package benchvsnodeadm

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/testing/aemmtest"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
	"github.com/nodeboot/nodeboot/internal/testing/systemdbus"
)

var (
	flagRuns        = flag.Int("runs", 31, "measured runs of each agent, interleaved")
	flagWarmup      = flag.Int("warmup", 3, "unmeasured runs of each agent first")
	flagInitRuns    = flag.Int("init-runs", 31, "GODEBUG=inittrace=1 runs of each binary")
	flagNodeboot    = flag.String("nodeboot", "", "nodeboot binary (stripped, as `make build` builds it)")
	flagNodeadm     = flag.String("nodeadm", "", "nodeadm binary (stripped, same flags)")
	flagNodeadmVer  = flag.String("nodeadm-version", "", "nodeadm module version, for the report")
	flagNodebootPkg = flag.String("nodeboot-pkg", "../../cmd/nodeboot", "nodeboot main package dir (std baseline)")
	flagNodeadmMod  = flag.String("nodeadm-mod", "../../test/tools/nodeadm", "nodeadm wrapper module dir (std baseline)")
	flagUserData    = flag.String("user-data", "../../internal/node/agent/testdata/cases/karpenter-al2023-mime/user-data", "user data both agents read from IMDS")
	flagOut         = flag.String("out", "", "also write the report (markdown) to this file")
	flagVariants    = flag.String("variants", "", "more nodeboot builds to measure alike, as name=path,name=path")
	flagRT          = flag.Int("rt", 0, "trace package init under chrt -f with this priority (0: normal scheduling)")
	flagUnit        = flag.String("unit", "../../packaging/rootfs/etc/systemd/system/nodeboot-config.service", "the unit whose Environment= nodeboot runs with, as on a node")
)

// rtCommand returns the command that runs bin, under chrt when -rt is set:
// then the rest of the machine's work does not preempt the process, and the
// init clock times (wall clock per package) are comparable across loads.
// Not for the agent runs: a real-time Go process's idle threads spin instead
// of yielding, which inflates its CPU time.
func rtCommand(bin string, args ...string) *exec.Cmd {
	if *flagRT > 0 {
		return exec.Command("chrt", append([]string{"-f", fmt.Sprint(*flagRT), bin}, args...)...)
	}
	return exec.Command(bin, args...)
}

// amiFiles are what an AL2023 AMI holds that both agents read: the versions
// recorded at build time (read instead of executing kubelet and containerd)
// and the ECR credential provider (only its presence is checked).
var amiFiles = map[string]string{
	"etc/eks/kubelet-version.txt":                               "v1.34.4\n",
	"etc/eks/containerd-version.txt":                            "1.7.27\n",
	"etc/eks/image-credential-provider/ecr-credential-provider": "#!/bin/sh\nexit 1\n",
}

// TestSideBySide runs `init --skip run` of both agents, alternating which
// goes first, and reports medians. It never fails on a figure; it fails only
// when an agent fails or writes no kubelet config.
func TestSideBySide(t *testing.T) {
	if *flagNodeboot == "" || *flagNodeadm == "" {
		t.Skip("run through hack/bench-vs-nodeadm.sh (-nodeboot and -nodeadm are required)")
	}
	requirePrivateMountNamespace(t)
	awstest.IsolateEnv(t)

	imdsURL, ec2 := startStubs(t)
	bus := startSystemBus(t)
	env := append(os.Environ(),
		"AWS_EC2_METADATA_SERVICE_ENDPOINT="+imdsURL,
		"AWS_ENDPOINT_URL_EC2="+ec2.URL,
		"DBUS_SYSTEM_BUS_ADDRESS="+bus)

	scratch := mountTmpfs(t, t.TempDir())
	unitEnv, err := unitEnvironment(*flagUnit)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("nodeboot runs with the environment of %s: %v", filepath.Base(*flagUnit), unitEnv)
	agents := []*agentRun{{name: "nodeboot", bin: *flagNodeboot, env: unitEnv, initArg: "version", prepare: prepareNodeboot(t, scratch)}}
	if len(unitEnv) > 0 {
		agents = append(agents, &agentRun{name: "nodeboot without the unit's environment", bin: *flagNodeboot, initArg: "version", prepare: prepareNodeboot(t, scratch)})
	}
	for _, v := range strings.Split(*flagVariants, ",") {
		if name, bin, ok := strings.Cut(v, "="); ok {
			agents = append(agents, &agentRun{name: name, bin: bin, env: unitEnv, initArg: "version", prepare: prepareNodeboot(t, scratch)})
		}
	}
	agents = append(agents, &agentRun{name: "nodeadm", bin: *flagNodeadm, initArg: "--help", prepare: prepareNodeadm(t, scratch)})
	for i := range *flagWarmup {
		for _, a := range agents {
			a.once(t, env, i == 0)
		}
	}
	for i := range *flagRuns {
		for j := range agents { // rotate who goes first, so drift hits all alike
			a := agents[(i+j)%len(agents)]
			a.samples = append(a.samples, a.once(t, env, false))
		}
	}
	calls := ec2.Calls(awstest.ActionDescribeInstances)

	for _, a := range agents {
		a.init = measureInit(t, a.bin, a.initArg)
	}
	baselines := []initFigures{
		measureInit(t, stdBaseline(t, *flagNodebootPkg, "celexec", "."), ""),
		measureInit(t, stdBaseline(t, *flagNodeadmMod, "", "github.com/awslabs/amazon-eks-ami/nodeadm/cmd/nodeadm"), ""),
	}
	report := formatReport(agents, baselines, calls)
	fmt.Print(report)
	if *flagOut != "" {
		if err := os.WriteFile(*flagOut, []byte(report), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// startStubs starts the metadata mock serving -user-data and the EC2 API
// knowing the mock's instance.
func startStubs(t *testing.T) (imdsURL string, ec2 *awstest.EC2) {
	userData, err := os.ReadFile(*flagUserData)
	if err != nil {
		t.Fatal(err)
	}
	imdsURL = aemmtest.Start(t, aemmtest.Config{UserData: userData})
	ec2 = awstest.NewEC2(t)
	ec2.AddInstance(awstest.Instance{ID: aemmtest.DefaultInstanceID, InstanceType: aemmtest.DefaultInstanceType,
		PrivateDNSName: aemmtest.DefaultHostname})
	return imdsURL, ec2
}

// agentRun is one agent under measurement.
type agentRun struct {
	name, bin string
	// env is added to the environment of the measured runs (a unit's
	// Environment=).
	env []string
	// initArg is what the binary is run with to trace its package init.
	initArg string
	init    initFigures
	// prepare sets up a fresh node for one run.
	prepare func(run int) node
	runs    int
	samples []sample
}

// node is one fresh node for one run.
type node struct {
	args []string
	// kubeletConfig is the file the run must write.
	kubeletConfig string
	// written are the directories that receive what the run writes.
	written []string
	cleanup func()
}

// sample is one process's cost, from wait4.
type sample struct {
	cpu, wall time.Duration
	maxRSS    int64 // bytes
}

// once runs the agent on a fresh node and checks that it configured it.
func (a *agentRun) once(t *testing.T, env []string, listFiles bool) sample {
	t.Helper()
	a.runs++
	n := a.prepare(a.runs)
	defer n.cleanup()
	cmd := exec.Command(a.bin, n.args...)
	cmd.Env = append(slices.Clip(env), a.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", a.name, strings.Join(n.args, " "), err, stdout.String(), stderr.String())
	}
	if _, err := os.Stat(n.kubeletConfig); err != nil {
		t.Fatalf("%s wrote no kubelet config: %v\n%s", a.name, err, stderr.String())
	}
	if listFiles {
		var files []string
		for _, d := range n.written {
			files = append(files, filesUnder(d)...)
		}
		t.Logf("%s wrote (first run):\n%s", a.name, strings.Join(files, "\n"))
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return sample{
		cpu:    time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		wall:   wall,
		maxRSS: ru.Maxrss * 1024, // kilobytes on Linux
	}
}

// prepareNodeboot gives each run a fresh --root on tmpfs holding what an
// AL2023 AMI holds: the version files, and this host's CPU list and memory.
func prepareNodeboot(t *testing.T, scratch string) func(int) node {
	hostCPUs := mustRead(t, "/sys/devices/system/cpu/online")
	hostMem := mustRead(t, "/proc/meminfo")
	return func(run int) node {
		root := filepath.Join(scratch, fmt.Sprintf("nodeboot-%d", run))
		writeAMIFiles(t, root)
		mustWrite(t, filepath.Join(root, "sys/devices/system/cpu/online"), hostCPUs)
		mustWrite(t, filepath.Join(root, "proc/meminfo"), hostMem)
		return node{
			args:          []string{"init", "--skip", "run", "--root", root},
			kubeletConfig: filepath.Join(root, "etc/kubernetes/kubelet/config.json"),
			written:       []string{root},
			cleanup:       func() { os.RemoveAll(root) },
		}
	}
}

// overlaid are the trees nodeadm writes to. Each run gets fresh tmpfs
// overlays over them, so it sees the real host underneath and its writes are
// discarded afterwards. nodeadm has no --root.
var overlaid = []string{"/etc", "/var/lib", "/run"}

func prepareNodeadm(t *testing.T, scratch string) func(int) node {
	return func(run int) node {
		base := filepath.Join(scratch, fmt.Sprintf("nodeadm-%d", run))
		var mounted, uppers []string
		cleanup := func() {
			for i := len(mounted) - 1; i >= 0; i-- {
				if err := syscall.Unmount(mounted[i], 0); err != nil {
					t.Errorf("unmount %s: %v", mounted[i], err)
				}
			}
			os.RemoveAll(base)
		}
		for i, dir := range overlaid {
			upper := filepath.Join(base, fmt.Sprint(i), "upper")
			work := filepath.Join(base, fmt.Sprint(i), "work")
			for _, d := range []string{upper, work} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			opts := "lowerdir=" + dir + ",upperdir=" + upper + ",workdir=" + work
			if err := syscall.Mount("overlay", dir, "overlay", 0, opts); err != nil {
				cleanup()
				t.Fatalf("overlay on %s: %v", dir, err)
			}
			mounted, uppers = append(mounted, dir), append(uppers, upper)
		}
		writeAMIFiles(t, "/")
		return node{
			args:          []string{"init", "--skip", "run"},
			kubeletConfig: "/etc/kubernetes/kubelet/config.json",
			written:       uppers,
			cleanup:       cleanup,
		}
	}
}

// requirePrivateMountNamespace refuses to mount over the host's /etc unless
// this process has a mount namespace of its own.
func requirePrivateMountNamespace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("needs root (nodeadm refuses to run otherwise, and the overlays need mount)")
	}
	self, err1 := os.Readlink("/proc/self/ns/mnt")
	parent, err2 := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", os.Getppid()))
	if err1 != nil || err2 != nil || self == parent {
		t.Fatalf("not in a private mount namespace (self %s, parent %s): run through hack/bench-vs-nodeadm.sh", self, parent)
	}
}

func mountTmpfs(t *testing.T, dir string) string {
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "mode=0755"); err != nil {
		t.Fatalf("tmpfs on %s: %v", dir, err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// startSystemBus runs the system bus nodeadm connects to (it opens its
// systemd connection before the config phase even with --skip run): a real
// dbus-daemon with the systemd manager answered on it
// (internal/testing/systemdbus); nothing is called on it in the config
// phase of this user data.
func startSystemBus(t *testing.T) string {
	dir, err := os.MkdirTemp("", "bench-bus-") // short: a unix socket path is at most 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return systemdbus.Start(t, filepath.Join(dir, "system_bus_socket")).Address
}

func filesUnder(dir string) []string {
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, "  "+p)
		}
		return nil
	})
	return files
}

func writeAMIFiles(t *testing.T, root string) {
	for p, data := range amiFiles {
		mustWrite(t, filepath.Join(root, p), data)
		if err := os.Chmod(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func mustRead(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustWrite(t *testing.T, p, data string) {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// hostLine describes the machine for the report.
func hostLine() string {
	load, _ := os.ReadFile("/proc/loadavg")
	return fmt.Sprintf("%d CPUs, %s, load average %s", runtime.NumCPU(), runtime.Version(),
		strings.Join(strings.Fields(string(load))[:3], " "))
}

var flagServe = flag.Duration("serve", 0, "TestServeStubs: keep the stubs up this long for manual profiling")

// TestServeStubs starts the metadata mock and the EC2 stub with the same
// user data, prints the environment that points an agent at them and keeps
// them up for -serve, e.g. to run `perf record` on one agent by hand.
func TestServeStubs(t *testing.T) {
	if *flagServe == 0 {
		t.Skip("set -serve")
	}
	awstest.IsolateEnv(t)
	imdsURL, ec2 := startStubs(t)
	fmt.Printf("export AWS_EC2_METADATA_SERVICE_ENDPOINT=%s AWS_ENDPOINT_URL_EC2=%s AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=%s AWS_REGION=%s\n",
		imdsURL, ec2.URL, os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"), os.Getenv("AWS_REGION"))
	time.Sleep(*flagServe)
}

// unitEnvironment returns the assignments of a systemd unit's Environment=
// lines (space-separated, each possibly in double quotes).
func unitEnvironment(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var env []string
	for _, line := range strings.Split(string(data), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "Environment=")
		if !ok {
			continue
		}
		for _, kv := range strings.Fields(rest) {
			env = append(env, strings.Trim(kv, `"`))
		}
	}
	return env, nil
}
