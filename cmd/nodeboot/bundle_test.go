package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/testing/aemmtest"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
	"github.com/nodeboot/nodeboot/internal/testing/pkitest"
)

// TestBundleStopsOnSIGTERM: with a metadata service that never answers
// (the doctor report waits on it), a SIGTERM ends `nodeboot bundle` at
// its next step: it exits 1 saying it was interrupted, having written a
// partial bundle.
func TestBundleStopsOnSIGTERM(t *testing.T) {
	awstest.IsolateEnv(t)
	imds := awstest.NewIMDS(t)
	imds.Hang(awstest.PathToken)
	root := t.TempDir()
	fakeMachine(t, root)
	cmd := exec.Command(binary, "bundle", "--root", root, "--out", "/b.tgz")
	cmd.Env = append(os.Environ(), "AWS_EC2_METADATA_SERVICE_ENDPOINT="+imds.URL)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for imds.Calls(awstest.PathToken) == 0 { // the run is under way (and its signal handler set)
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_, err := awstest.Within(t, func() (struct{}, error) { return struct{}{}, cmd.Wait() })
	t.Logf("exited %v after SIGTERM in %s: %s", err, time.Since(start).Round(time.Millisecond), stderr.String())
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(stderr.String(), "context canceled: a partial bundle was written to") {
		t.Errorf("exit %d, stderr %s", cmd.ProcessState.ExitCode(), stderr.String())
	}
	if _, err := os.Stat(filepath.Join(root, "b.tgz")); err != nil {
		t.Error(err)
	}
}

// bundleLogMiB is the size of the logs TestBundleMemoryIsBounded writes;
// NODEBOOT_BUNDLE_LOG_MIB=1024 is the 1 GiB measurement of
// docs/performance.md.
func bundleLogMiB(t *testing.T) int {
	if v := os.Getenv("NODEBOOT_BUNDLE_LOG_MIB"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("NODEBOOT_BUNDLE_LOG_MIB=%q", v)
		}
		return n
	}
	return 96
}

// peakRSSBound is what a bundle may take in memory, whatever the logs'
// size: it streams every item through scratch files.
const peakRSSBound = 64 << 20

// TestBundleMemoryIsBounded writes large kubelet and system logs (lines
// inside the window, some with a token to mask) and checks the bundle
// process's peak resident memory.
func TestBundleMemoryIsBounded(t *testing.T) {
	awstest.IsolateEnv(t)
	root := t.TempDir()
	fakeMachine(t, root)
	logs := []string{"/var/log/kubelet.log", "/var/log/containerd.log", "/var/log/messages", "/var/log/syslog"}
	per := int64(bundleLogMiB(t)) << 20 / int64(len(logs))
	for _, p := range logs {
		writeLog(t, filepath.Join(root, p), per)
	}
	cmd := exec.Command(binary, "bundle", "--root", root, "--out", "/b.tgz", "-c", "file:///nonexistent")
	cmd.Env = append(os.Environ(), "AWS_EC2_METADATA_DISABLED=true")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	hwm := followPeakRSS(cmd.Process.Pid)
	if _, err := awstest.Within(t, func() (struct{}, error) { return struct{}{}, cmd.Wait() }); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	peak := <-hwm
	t.Logf("bundle of %d MiB of logs: peak RSS %.1f MiB, %s; %s", int64(len(logs))*per>>20, float64(peak)/(1<<20),
		time.Since(start).Round(time.Millisecond), strings.TrimSpace(out.String()))
	if peak > peakRSSBound {
		t.Errorf("peak RSS %d MiB, bound %d MiB", peak>>20, peakRSSBound>>20)
	}
}

// followPeakRSS reads the process's own peak resident memory (VmHWM) every
// few milliseconds until it exits, and sends the last value read. The
// child's rusage cannot be used: Go starts a child sharing the parent's
// memory until exec (vfork), and Linux counts the parent's peak into the
// child's ru_maxrss at exec, so a -race test process (60+ MiB) would be
// measured instead of the bundle. VmHWM belongs to the memory the exec
// created; what the last few milliseconds before the exit add is missed.
func followPeakRSS(pid int) <-chan int64 {
	out := make(chan int64, 1)
	go func() {
		var last int64
		for {
			v, ok := vmHWM(pid)
			if !ok {
				out <- last
				return
			}
			last = max(last, v)
			time.Sleep(2 * time.Millisecond)
		}
	}()
	return out
}

// vmHWM is /proc/PID/status's VmHWM in bytes; false once the process has
// exited (a zombie has no VmHWM line).
func vmHWM(pid int) (int64, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kib << 10, err == nil
		}
	}
	return 0, false
}

// writeLog writes about size bytes of kubelet-like log lines of the last
// hour, one in 500 carrying a bearer token.
func writeLog(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	stamp := time.Now().Add(-30 * time.Minute).Format("0102 15:04:05.000000")
	for n, i := int64(0), 0; n < size; i++ {
		var line string
		if i%500 == 0 {
			line = fmt.Sprintf("E%s 1 round_trippers.go:470] -H \"Authorization: Bearer tok-%08d-secret\" https://10.0.0.1/api\n", stamp, i)
		} else {
			line = fmt.Sprintf("I%s 1 kubelet.go:%d] \"Syncing pod\" pod=\"kube-system/coredns-%d\" containerID=\"containerd://%064x\"\n", stamp, i%3000, i, i)
		}
		k, _ := w.WriteString(line)
		n += int64(k)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestInitDiagnosisStopsOnSIGTERM: a SIGTERM while init's run phase
// diagnoses a node that did not register (the doctor waiting on an API
// server that accepts and never answers) ends it at the next step, saying
// the diagnosis was cut short, instead of holding the shutdown for the
// diagnosis bound.
func TestInitDiagnosisStopsOnSIGTERM(t *testing.T) {
	awstest.IsolateEnv(t)
	silent, err := net.Listen("tcp", "127.0.0.1:0") // an API server that accepts and never answers
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	root, env := configuredNode(t, silent.Addr().String())
	cmd := exec.Command(binary, "init", "--skip", "config", "--daemon=", "--registration-timeout", "1s", "--root", root)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	diagnosing := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := false
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
			if !once && strings.Contains(sc.Text(), "running the doctor") {
				once = true
				close(diagnosing)
			}
		}
		if !once {
			close(diagnosing)
		}
	}()
	if _, err := awstest.Within(t, func() (struct{}, error) { <-diagnosing; return struct{}{}, nil }); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("%v (did init exit before diagnosing?)\n%s", err, out.String())
	}
	_, _ = awstest.Within(t, func() (struct{}, error) { return struct{}{}, cmd.Wait() })
	t.Logf("init exited %d, %s after SIGTERM", cmd.ProcessState.ExitCode(), time.Since(start).Round(time.Millisecond))
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(out.String(), "diagnosis cut short") {
		t.Errorf("exit %d:\n%s", cmd.ProcessState.ExitCode(), out.String())
	}
}

// configuredNode renders a node under a scratch root whose API server is
// apiServer (host:port), and returns the root and the environment that
// configured it.
func configuredNode(t *testing.T, apiServer string) (string, []string) {
	t.Helper()
	userData := "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: lab\n    apiServerEndpoint: https://" + apiServer +
		"\n    certificateAuthority: " + base64.StdEncoding.EncodeToString(pkitest.NewCA(t, "lab-ca").PEM) + "\n    cidr: 10.96.0.0/12\n"
	imdsURL := aemmtest.Start(t, aemmtest.Config{UserData: []byte(userData)})
	ec2 := awstest.NewEC2(t)
	ec2.AddInstance(awstest.Instance{ID: aemmtest.DefaultInstanceID, InstanceType: "m5.large", PrivateDNSName: "ip-10-0-0-5.us-west-2.compute.internal"})
	root := t.TempDir()
	fakeMachine(t, root)
	env := []string{"AWS_EC2_METADATA_SERVICE_ENDPOINT=" + imdsURL, "AWS_ENDPOINT_URL_EC2=" + ec2.URL, "PATH=/usr/bin:/bin"}
	if res := run(t, env, "init", "--skip", "run", "--root", root); res.code != 0 {
		t.Fatalf("init: exit %d\n%s", res.code, res.stderr)
	}
	return root, env
}
