//go:build oracle

package oracle

import (
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/testing/aemmtest"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// cloud is the AWS one node sees: AEMM serving the case's instance, and an
// EC2 API (the Query protocol, to the agents' real SDK clients) that knows
// it. Each node has its own, so that what one agent asks is told apart.
type cloud struct {
	imds, ec2 string
	// imdsConfig and imdsPort are for an IMDS started late.
	imdsConfig string
	imdsPort   *aemmtest.Reservation
	proxy      *logProxy
}

// startCloud starts one node's cloud for case c.
func startCloud(t testing.TB, c nodeadmCase) cloud {
	var cl cloud
	cl.imdsConfig = aemmConfig(t, c)
	ec2 := awstest.NewEC2(t)
	ec2.AddInstance(awstest.Instance{ID: "i-1234567890abcdef0", InstanceType: "m4.xlarge",
		PrivateDNSName: "ip-172-16-34-43.ec2.internal", AvailabilityZone: "us-west-2f"})
	cl.ec2 = ec2.URL
	switch {
	case c.blackholeEC2:
		cl.ec2 = "http://" + blackhole(t)
	case c.proxy:
		// Go's clients never proxy loopback addresses: the case reaches
		// the EC2 API at 0.0.0.0 for the proxy to be used.
		cl.ec2 = strings.Replace(ec2.URL, "127.0.0.1", "0.0.0.0", 1)
	}
	if c.lateIMDS > 0 {
		port, err := aemmtest.Reserve(t)
		if err != nil {
			t.Fatal(err)
		}
		cl.imdsPort, cl.imds = port, port.Endpoint
		return cl
	}
	cl.imds = aemmtest.StartConfigFile(t, cl.imdsConfig)
	return cl
}

// aemmConfig returns the case's AEMM config file: nodeadm's default, as
// the case changes it, with the proxy it names moved to this node's.
func aemmConfig(t testing.TB, c nodeadmCase) string {
	path := tool.InfraFile("aemm-default-config.json")
	if c.proxy {
		path = filepath.Join(tool.CasesDir(), "nodeadm-http-proxy", "http-proxy-imds-mock.json")
	}
	if c.aemm == nil && !c.proxy {
		return path
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var config map[string]any
	if err := jsonUnmarshal(data, &config); err != nil {
		t.Fatal(err)
	}
	if c.aemm != nil {
		c.aemm(t, config)
	}
	out := filepath.Join(t.TempDir(), "aemm-config.json")
	if err := os.WriteFile(out, jsonMarshal(t, config), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// withProxy makes the node's user data name the logging proxy where the
// case's names localhost:8080.
func (cl *cloud) withProxy(t *testing.T, proxy *logProxy) {
	cl.proxy = proxy
	data, err := os.ReadFile(cl.imdsConfig)
	if err != nil {
		t.Fatal(err)
	}
	var config map[string]any
	if err := jsonUnmarshal(data, &config); err != nil {
		t.Fatal(err)
	}
	values := config["userdata"].(map[string]any)["values"].(map[string]any)
	ud, err := base64.StdEncoding.DecodeString(values["userdata"].(string))
	if err != nil {
		t.Fatal(err)
	}
	values["userdata"] = base64.StdEncoding.EncodeToString([]byte(strings.ReplaceAll(string(ud), "localhost:8080", cl.proxy.addr)))
	out := filepath.Join(t.TempDir(), "aemm-proxy-config.json")
	if err := os.WriteFile(out, jsonMarshal(t, config), 0o644); err != nil {
		t.Fatal(err)
	}
	cl.imdsConfig = out
	cl.imds = aemmtest.StartConfigFile(t, out)
}

// startIMDSLater starts the node's IMDS 10 s from now, as imds-timeouts'
// run.sh does in the background. Its port stays reserved until then
// (aemmtest.Reserve): connections are refused, and no other case's AEMM
// can be given it. A test that ends first stops the timer, or waits for a
// start already under way, so that nothing logs to a finished test.
func (cl *cloud) startIMDSLater(t *testing.T) {
	var started sync.WaitGroup
	started.Add(1)
	timer := time.AfterFunc(10*time.Second, func() {
		defer started.Done()
		if _, err := aemmtest.StartConfigFileOn(t, cl.imdsConfig, cl.imdsPort); err != nil {
			t.Errorf("late IMDS: %v", err)
		}
	})
	t.Cleanup(func() {
		if timer.Stop() {
			started.Done()
		}
		started.Wait()
	})
}

// blackhole returns a loopback address whose connections are never
// established (a full accept queue drops every SYN), as nodeadm's case's
// `iptables -j DROP` does, without touching the host's firewall.
func blackhole(t testing.TB) string {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
	for filled := 0; ; filled++ { // fill the accept queue, never accepting
		c, err := net.DialTimeout("tcp", addr, 500*time.Millisecond)
		if err != nil {
			if filled == 0 {
				t.Fatalf("blackhole %s: %v", addr, err)
			}
			return addr
		}
		t.Cleanup(func() { c.Close() })
		if filled > 16 {
			t.Fatalf("blackhole %s: the accept queue does not fill", addr)
		}
	}
}

// logProxy is a forward HTTP proxy that logs each request as nodeadm's
// e2e proxy.py does, one JSON line per request.
type logProxy struct {
	addr  string
	mu    sync.Mutex
	lines []string
}

func startLogProxy(t *testing.T) *logProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &logProxy{addr: ln.Addr().String()}
	transport := &http.Transport{Proxy: nil}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out, err := http.NewRequestWithContext(r.Context(), r.Method, r.URL.String(), r.Body)
		if err != nil || !r.URL.IsAbs() {
			http.Error(w, "not a proxy request", http.StatusBadRequest)
			return
		}
		out.Header = r.Header.Clone()
		resp, err := transport.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		p.mu.Lock()
		p.lines = append(p.lines, fmt.Sprintf(`{"method": %q, "url": %q, "response": %d},`, r.Method, r.URL.String(), resp.StatusCode))
		p.mu.Unlock()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return p
}

func (p *logProxy) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lines = nil
}

// requestsTo returns the logged requests for URLs under prefix.
func (p *logProxy) requestsTo(prefix string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var lines []string
	for _, l := range p.lines {
		if strings.Contains(l, `"url": "`+prefix) {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}
