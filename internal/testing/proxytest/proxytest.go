// Package proxytest runs an HTTPS forward proxy (HTTP CONNECT) on loopback
// that behaves like the proxies nodes sit behind: one that tunnels, one
// that refuses a destination (403) or wants credentials (407), one that
// accepts the connection and never answers CONNECT, and a TLS-inspecting
// one that ends TLS itself with certificates of its own CA.
package proxytest

import (
	"bufio"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/pkitest"
)

// Options choose the proxy's behaviour; the zero value tunnels.
type Options struct {
	// Status, when set, answers every CONNECT with it instead of tunnelling.
	Status int
	// Hang accepts connections and never answers CONNECT.
	Hang bool
	// Auth, when set ("user:password"), is required in Proxy-Authorization
	// (Basic); without it the proxy answers 407.
	Auth string
	// Inspect, when set, makes the proxy inspect TLS: it presents a
	// certificate issued by this CA for InspectNames and opens its own TLS
	// connection to the destination.
	Inspect      *pkitest.CA
	InspectNames pkitest.Spec
	// Hosts resolves destination host names for the proxy (it resolves
	// them itself, as a real proxy does; names not listed are dialled as
	// they are).
	Hosts map[string]string
}

// Proxy is a running proxy.
type Proxy struct {
	// URL is http://127.0.0.1:PORT.
	URL string
	// Addr is 127.0.0.1:PORT.
	Addr string

	opts     Options
	cert     *tls.Certificate
	mu       sync.Mutex
	connects []string
}

// Start starts a proxy that stops when the test ends.
func Start(t testing.TB, opts Options) *Proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: l.Addr().String(), URL: "http://" + l.Addr().String(), opts: opts}
	if opts.Inspect != nil {
		pair := opts.Inspect.Issue(t, opts.InspectNames)
		cert, err := tls.X509KeyPair(pair.CertPEM, pair.KeyPEM)
		if err != nil {
			t.Fatal(err)
		}
		p.cert = &cert
	}
	done := make(chan struct{})
	var conns sync.WaitGroup
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns.Go(func() { p.serve(c, done) })
		}
	}()
	t.Cleanup(func() {
		close(done)
		l.Close()
		conns.Wait()
	})
	return p
}

// Connects returns the destinations of every CONNECT received.
func (p *Proxy) Connects() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.connects...)
}

func (p *Proxy) serve(c net.Conn, done <-chan struct{}) {
	defer c.Close()
	go func() { <-done; c.Close() }()
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.connects = append(p.connects, req.Host)
	p.mu.Unlock()
	switch {
	case p.opts.Hang:
		_, _ = io.Copy(io.Discard, br) // until the client or the test gives up
		return
	case req.Method != http.MethodConnect:
		answer(c, http.StatusMethodNotAllowed)
		return
	case p.opts.Auth != "" && req.Header.Get("Proxy-Authorization") != "Basic "+base64.StdEncoding.EncodeToString([]byte(p.opts.Auth)):
		answer(c, http.StatusProxyAuthRequired)
		return
	case p.opts.Status != 0:
		answer(c, p.opts.Status)
		return
	}
	up, err := net.Dial("tcp", p.resolve(req.Host))
	if err != nil {
		answer(c, http.StatusBadGateway)
		return
	}
	defer up.Close()
	answer(c, http.StatusOK)
	if p.cert != nil {
		p.inspect(c, up, req.Host)
		return
	}
	tunnel(&bufferedConn{Conn: c, r: br}, up)
}

// resolve maps a destination's host through Options.Hosts.
func (p *Proxy) resolve(hostport string) string {
	host, port, err := net.SplitHostPort(hostport)
	if ip, ok := p.opts.Hosts[host]; ok && err == nil {
		return net.JoinHostPort(ip, port)
	}
	return hostport
}

// inspect ends the client's TLS with the proxy's own certificate and
// talks TLS to the destination itself, as a TLS-inspecting proxy does.
func (p *Proxy) inspect(client, up net.Conn, host string) {
	front := tls.Server(client, &tls.Config{Certificates: []tls.Certificate{*p.cert}})
	if err := front.Handshake(); err != nil {
		return
	}
	name, _, _ := net.SplitHostPort(host)
	back := tls.Client(up, &tls.Config{ServerName: name, InsecureSkipVerify: true}) // an inspecting proxy trusts what it chooses to
	if err := back.Handshake(); err != nil {
		return
	}
	tunnel(front, back)
}

func answer(c net.Conn, status int) {
	_, _ = fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Length: 0\r\n\r\n", status, http.StatusText(status))
}

// tunnel copies both ways until one side ends.
func tunnel(a, b net.Conn) {
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = io.Copy(a, b); a.Close() })
	wg.Go(func() { _, _ = io.Copy(b, a); b.Close() })
	wg.Wait()
}

// bufferedConn reads what the request reader already buffered first.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }
