// Package aemmtest runs the real amazon-ec2-metadata-mock (AEMM, v1.12.0,
// built by test/e2e/scripts/build-aemm.sh) as a local IMDS for tests.
//
// The binary is found through $NODEBOOT_AEMM or at
// <repo>/.cache/e2e/bin/ec2-metadata-mock. When it is missing the test is
// skipped, unless $NODEBOOT_REQUIRE_E2E is set (CI), in which case it fails.
package aemmtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/moduleroot"
)

// Environment variables read by Start.
const (
	// EnvBinary names the AEMM binary to use.
	EnvBinary = "NODEBOOT_AEMM"
	// EnvRequireE2E turns a missing binary into a test failure.
	EnvRequireE2E = "NODEBOOT_REQUIRE_E2E"
)

// ErrBinaryMissing is wrapped by Binary when no AEMM binary is found.
var ErrBinaryMissing = errors.New("amazon-ec2-metadata-mock binary not found; build it with test/e2e/scripts/build-aemm.sh")

// Config is the instance AEMM pretends to be. Empty fields take the
// defaults below; nil UserData and empty IPv6s/VPCCIDRs make those paths
// answer 404, as on an instance without them.
type Config struct {
	UserData     []byte
	InstanceID   string
	InstanceType string
	Region       string
	AZ           string
	LocalIPv4    string
	MAC          string
	Hostname     string
	IPv6s        []string
	VPCCIDRs     []string
	// IAM is the instance profile and the role credentials the instance
	// serves; nil leaves AEMM's own (whose expiration is in the past).
	IAM *IAMRole
}

// IAMRole is an instance profile's role as IMDS serves it: iam/info and
// iam/security-credentials/ROLE.
type IAMRole struct {
	InstanceProfileARN, InstanceProfileID string
	// RoleName is the role's name (no path), the last element of the
	// credentials path.
	RoleName                            string
	AccessKeyID, SecretAccessKey, Token string
	Expiration                          time.Time
}

// Defaults used for empty Config fields.
const (
	DefaultInstanceID   = "i-0123456789abcdef0"
	DefaultInstanceType = "m5.large"
	DefaultRegion       = "us-west-2"
	DefaultAZ           = "us-west-2a"
	DefaultLocalIPv4    = "10.0.0.5"
	DefaultMAC          = "0e:49:61:0f:c3:11"
	DefaultHostname     = "ip-10-0-0-5.us-west-2.compute.internal"
)

func (c Config) withDefaults() Config {
	set := func(p *string, v string) {
		if *p == "" {
			*p = v
		}
	}
	set(&c.InstanceID, DefaultInstanceID)
	set(&c.InstanceType, DefaultInstanceType)
	set(&c.Region, DefaultRegion)
	set(&c.AZ, DefaultAZ)
	set(&c.LocalIPv4, DefaultLocalIPv4)
	set(&c.MAC, DefaultMAC)
	set(&c.Hostname, DefaultHostname)
	return c
}

// Start writes the AEMM config for c, starts AEMM on 127.0.0.1 at a free
// port in IMDSv2-only mode (-I), waits until it hands out session tokens and
// returns its endpoint ("http://127.0.0.1:<port>"). AEMM is killed when the
// test ends; its log is shown if the test failed.
func Start(t testing.TB, c Config) string {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		if os.Getenv(EnvRequireE2E) != "" {
			t.Fatalf("aemmtest: %v (%s is set)", err, EnvRequireE2E)
		}
		t.Skipf("aemmtest: %v", err)
	}
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "aemm-config.json")
	data, err := ConfigJSON(c)
	if err != nil {
		t.Fatalf("aemmtest: %v", err)
	}
	if err := os.WriteFile(cfgPath, data, 0o600); err != nil {
		t.Fatalf("aemmtest: %v", err)
	}
	return startConfig(t, bin, cfgPath, dir)
}

// StartConfigFile is Start with AEMM's own configuration file as written
// by someone else (nodeadm's e2e cases ship one): AEMM serves exactly what
// it says, in IMDSv2-only mode.
func StartConfigFile(t testing.TB, cfgPath string) string {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		if os.Getenv(EnvRequireE2E) != "" {
			t.Fatalf("aemmtest: %v (%s is set)", err, EnvRequireE2E)
		}
		t.Skipf("aemmtest: %v", err)
	}
	return startConfig(t, bin, cfgPath, t.TempDir())
}

// startConfig starts AEMM with cfgPath and serves it on a free port.
func startConfig(t testing.TB, bin, cfgPath, dir string) string {
	t.Helper()
	backend, err := launchOnFreePort(t, bin, cfgPath, dir)
	if err != nil {
		t.Fatalf("aemmtest: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("aemmtest: %v", err)
	}
	return serveSerialized(t, l, backend)
}

// launchOnFreePort launches AEMM on a free port, retrying on a lost port
// race, and returns its endpoint.
func launchOnFreePort(t testing.TB, bin, cfgPath, dir string) (string, error) {
	var lastErr error
	for try := 0; try < 3; try++ { // the free port can be taken between probe and bind
		port, err := freePort()
		if err != nil {
			return "", err
		}
		backend, err := launch(t, bin, cfgPath, dir, port)
		if err == nil {
			return backend, nil
		}
		lastErr = err
	}
	return "", lastErr
}

// Reservation is a loopback port held for an IMDS that starts late: its
// socket is bound but not listening, so a connection to it is refused, as
// to an IMDS that is not up yet, and nothing else can take the port
// meanwhile. A port merely found free and left unbound can be handed by
// the kernel to the next listener that asks for one: in CI another test's
// AEMM took it, and the agent that had to find no IMDS found that one.
type Reservation struct {
	// Endpoint is "http://127.0.0.1:<port>".
	Endpoint string
	fd       int
	once     sync.Once
}

// Reserve binds a loopback port for StartConfigFileOn; the socket is
// closed when the test ends, if nothing listened on it.
func Reserve(t testing.TB) (*Reservation, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("reserve a port: %w", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("reserve a port: %w", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("reserve a port: %w", err)
	}
	r := &Reservation{Endpoint: "http://127.0.0.1:" + strconv.Itoa(sa.(*syscall.SockaddrInet4).Port), fd: fd}
	t.Cleanup(func() { r.once.Do(func() { syscall.Close(fd) }) })
	return r, nil
}

// listener starts listening on the reserved socket, once.
func (r *Reservation) listener() (net.Listener, error) {
	err := errors.New("the reservation was used or released")
	var l net.Listener
	r.once.Do(func() {
		if err = syscall.Listen(r.fd, syscall.SOMAXCONN); err != nil {
			syscall.Close(r.fd)
			return
		}
		f := os.NewFile(uintptr(r.fd), "aemm-reserved")
		defer f.Close() // FileListener holds a duplicate
		l, err = net.FileListener(f)
	})
	return l, err
}

// StartConfigFileOn is StartConfigFile on a reserved port, returning an
// error instead of failing the test, so that it may run late, from
// another goroutine (a test of an agent that must wait for IMDS to
// appear).
func StartConfigFileOn(t testing.TB, cfgPath string, r *Reservation) (string, error) {
	bin, err := Binary()
	if err != nil {
		return "", err
	}
	backend, err := launchOnFreePort(t, bin, cfgPath, t.TempDir())
	if err != nil {
		return "", err
	}
	l, err := r.listener()
	if err != nil {
		return "", fmt.Errorf("aemmtest: %w", err)
	}
	return serveSerialized(t, l, backend), nil
}

// launch starts AEMM on port, waits until it answers, and stops it when
// the test ends.
func launch(t testing.TB, bin, cfgPath, dir string, port int) (string, error) {
	logPath := filepath.Join(dir, "aemm-"+strconv.Itoa(port)+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return "", err
	}
	cmd := exec.Command(bin, "-n", "127.0.0.1", "-p", strconv.Itoa(port), "-I", "-c", cfgPath)
	// A test killed before its cleanups must not leave AEMM behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return "", fmt.Errorf("start %s: %w", bin, err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		logFile.Close()
		close(exited)
	}()
	stop := func() {
		cmd.Process.Kill() // an error only means it has exited already
		<-exited
	}
	endpoint := "http://127.0.0.1:" + strconv.Itoa(port)
	if err := waitReady(t.Context(), endpoint, exited, 10*time.Second); err != nil {
		stop()
		return "", fmt.Errorf("%w\n%s", err, tail(logPath))
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("aemmtest: AEMM log (%s):\n%s", logPath, tail(logPath))
		}
	})
	return endpoint, nil
}

// serveSerialized serves on l what AEMM at backend answers, one request
// at a time, and returns l's endpoint. AEMM v1.12.0 cannot answer two
// requests at once: its static metadata handler keeps the answer it is
// about to write in a package-level variable (pkg/mock/static/static.go,
// `response`), so concurrent requests can get each other's answers (an
// e2e run saw local-ipv4 answered with the MAC: nodeboot reads instance
// metadata in parallel, as the real IMDS allows). Written by hand: the
// standard library's reverse proxy behind one mutex is all it takes.
func serveSerialized(t testing.TB, l net.Listener, backend string) string {
	target, err := url.Parse(backend)
	if err != nil {
		t.Fatalf("aemmtest: %v", err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = &http.Transport{Proxy: nil}
	var one sync.Mutex
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		one.Lock()
		defer one.Unlock()
		proxy.ServeHTTP(w, r)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + l.Addr().String()
}

// Binary returns the AEMM binary path: $NODEBOOT_AEMM, else
// <repo>/.cache/e2e/bin/ec2-metadata-mock. The error wraps ErrBinaryMissing.
func Binary() (string, error) {
	if p := os.Getenv(EnvBinary); p != "" {
		if isExecutable(p) {
			return p, nil
		}
		return "", fmt.Errorf("%s=%s: %w", EnvBinary, p, ErrBinaryMissing)
	}
	root, err := moduleroot.Find()
	if err != nil {
		return "", fmt.Errorf("%w (%v)", ErrBinaryMissing, err)
	}
	p := filepath.Join(root, ".cache", "e2e", "bin", "ec2-metadata-mock")
	if !isExecutable(p) {
		return "", fmt.Errorf("%s: %w", p, ErrBinaryMissing)
	}
	return p, nil
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady polls the token endpoint until AEMM answers 200.
func waitReady(ctx context.Context, endpoint string, exited <-chan struct{}, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{Proxy: nil}}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, endpoint+"/latest/api/token", nil)
		if err != nil {
			return err
		}
		req.Header.Set("X-aws-ec2-metadata-token-ttl-seconds", "60")
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-exited:
			return errors.New("AEMM exited before it was ready")
		case <-ctx.Done():
			return fmt.Errorf("AEMM at %s not ready after %s", endpoint, limit)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// tail returns the last lines of a log file.
func tail(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > 40 {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n")
}
