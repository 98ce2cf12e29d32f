package doctor

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
)

// endpointStepBound bounds DNS, TCP, the proxy's CONNECT, TLS and the GET
// each.
const endpointStepBound = 5 * time.Second

// EndpointEvidence is what reaching the API server showed, step by step:
// the name looked up once, the TCP connection, the proxy's answer to
// CONNECT, the TLS handshake, the chain checked against the cluster CA,
// and (only once the chain verified) an anonymous GET /version.
type EndpointEvidence struct {
	Conn Connection
	// Host and Port of the API server URL; URLErr when it is unusable.
	Host, Port string
	URLErr     error
	// Proxy is the proxy the request goes through, if any.
	Proxy    *url.URL
	ProxyErr error
	// Lookup is the one DNS lookup made: of the proxy's host when there
	// is a proxy (which resolves the API server's name itself), else of
	// the API server's; nil for an IP address. Resolver is resolv.conf.
	Lookup   *DNSLookup
	Resolver ResolverConf
	// Dialed is the address connected to (the proxy's when there is one).
	Dialed  string
	TCPErr  error
	TCPTook time.Duration
	// Tunnel is the proxy's answer to CONNECT; nil without a proxy.
	Tunnel *TunnelStep
	// CAs are the configured cluster CAs (CAErr when unusable).
	CAs   []*x509.Certificate
	CAErr error
	// Chain is what the server presented; HandshakeErr when TLS failed.
	Chain        []*x509.Certificate
	HandshakeErr error
	// VerifyErr is the chain checked against CAs for the host name.
	VerifyErr error
	// Status and Location are the answer to GET /version (Location of a
	// redirect, which is never followed); Version its content.
	Status   int
	Location string
	Version  *kubeapi.VersionInfo
	// Clock is the Date of that answer: taken only from a server whose
	// chain verified.
	Clock ClockSample
	// bound is each step's bound.
	bound time.Duration
}

// TunnelStep is a proxy's answer to CONNECT.
type TunnelStep struct {
	Target string
	// Status is the proxy's HTTP status (0 when it did not answer).
	Status int
	Err    error
	Took   time.Duration
}

// Verified reports whether the API server proved to be the cluster's.
func (e EndpointEvidence) Verified() bool {
	return e.Conn.Err == nil && e.URLErr == nil && e.HandshakeErr == nil && e.CAErr == nil && e.VerifyErr == nil && len(e.Chain) > 0
}

// Network lets tests replace name resolution and dialling.
type Network struct {
	LookupHost  func(ctx context.Context, host string) ([]string, error)
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// StepBound bounds each step of reaching the API server (DNS, TCP,
	// CONNECT, TLS, GET); 0 means endpointStepBound.
	StepBound time.Duration
}

func (n Network) step() time.Duration {
	if n.StepBound > 0 {
		return n.StepBound
	}
	return endpointStepBound
}

func (n Network) lookup(ctx context.Context, host string) ([]string, error) {
	if n.LookupHost != nil {
		return n.LookupHost(ctx, host)
	}
	return net.DefaultResolver.LookupHost(ctx, host)
}

func (n Network) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if n.DialContext != nil {
		return n.DialContext(ctx, network, addr)
	}
	return (&net.Dialer{}).DialContext(ctx, network, addr)
}

// probeEndpoint walks DNS, TCP, the proxy's tunnel, TLS, and an anonymous
// GET /version. No credential is ever sent here.
func probeEndpoint(ctx context.Context, nw Network, conn Connection, cas func(kubeapi.Cluster) ([]*x509.Certificate, error), now time.Time) EndpointEvidence {
	ev := EndpointEvidence{Conn: conn, bound: nw.step()}
	if conn.Err != nil || !ev.target() {
		return ev
	}
	ev.CAs, ev.CAErr = cas(conn.Cluster)
	c := ev.connect(ctx, nw)
	if c == nil {
		return ev
	}
	defer c.Close()
	if ev.Proxy != nil {
		if c = ev.tunnel(c); c == nil {
			return ev
		}
	}
	serverName := firstNonEmpty(conn.Cluster.TLSServerName, ev.Host)
	tc := ev.handshake(c, serverName)
	if tc == nil {
		return ev
	}
	if ev.CAErr == nil {
		ev.VerifyErr = verifyChain(ev.Chain, ev.CAs, serverName, now)
	}
	if ev.Verified() {
		ev.getVersion(tc)
	}
	return ev
}

// target parses the server URL and picks the proxy.
func (ev *EndpointEvidence) target() bool {
	u, err := url.Parse(ev.Conn.Cluster.Server)
	if err != nil || u.Scheme != "https" || u.Hostname() == "" {
		ev.URLErr = fmt.Errorf("server %q is not an https:// URL", ev.Conn.Cluster.Server)
		return false
	}
	ev.Host, ev.Port = u.Hostname(), firstNonEmpty(u.Port(), "443")
	ev.Proxy, ev.ProxyErr = ev.Conn.Proxy(&http.Request{URL: u})
	if ev.ProxyErr == nil && ev.Proxy != nil && ev.Proxy.Hostname() == "" {
		ev.ProxyErr = fmt.Errorf("proxy %q has no host", ev.Proxy.Redacted())
	}
	return ev.ProxyErr == nil
}

// connect looks the dialled host up once and connects to what it found.
func (ev *EndpointEvidence) connect(ctx context.Context, nw Network) net.Conn {
	host, port := ev.Host, ev.Port
	if ev.Proxy != nil {
		host, port = ev.Proxy.Hostname(), firstNonEmpty(ev.Proxy.Port(), defaultProxyPort(ev.Proxy.Scheme))
	}
	ev.Dialed = net.JoinHostPort(host, port)
	addrs := []string{host}
	if net.ParseIP(host) == nil {
		l := nw.lookupOnce(ctx, host, nw.step())
		ev.Lookup = &l
		if l.Err != nil {
			return nil
		}
		addrs = l.Addrs
	}
	tctx, cancel := context.WithTimeout(ctx, nw.step())
	defer cancel()
	start := time.Now()
	for _, a := range addrs {
		var c net.Conn
		if c, ev.TCPErr = nw.dial(tctx, "tcp", net.JoinHostPort(a, port)); ev.TCPErr == nil {
			ev.TCPTook = time.Since(start)
			return c
		}
	}
	ev.TCPTook = time.Since(start)
	return nil
}

func defaultProxyPort(scheme string) string {
	if scheme == "https" {
		return "443"
	}
	return "80"
}

// tunnel asks the proxy for a tunnel to the API server (HTTP CONNECT,
// over TLS to an https:// proxy, with the proxy URL's credentials) and
// records its answer; it returns the tunnel, or nil.
func (ev *EndpointEvidence) tunnel(c net.Conn) net.Conn {
	target := net.JoinHostPort(ev.Host, ev.Port)
	ev.Tunnel = &TunnelStep{Target: target}
	start := time.Now()
	_ = c.SetDeadline(start.Add(ev.bound))
	if ev.Proxy.Scheme == "https" {
		c = tls.Client(c, &tls.Config{ServerName: ev.Proxy.Hostname()})
	}
	req := &http.Request{Method: http.MethodConnect, URL: &url.URL{Opaque: target}, Host: target, Header: http.Header{}}
	if u := ev.Proxy.User; u != nil {
		password, _ := u.Password()
		req.Header.Set("Proxy-Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+password)))
	}
	resp, err := roundTrip(c, req)
	ev.Tunnel.Took = time.Since(start)
	if err != nil {
		ev.Tunnel.Err = err
		return nil
	}
	resp.Body.Close()
	ev.Tunnel.Status = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	_ = c.SetDeadline(time.Time{})
	return c
}

// roundTrip writes req on c and reads the answer's head.
func roundTrip(c net.Conn, req *http.Request) (*http.Response, error) {
	if err := req.Write(c); err != nil {
		return nil, err
	}
	return http.ReadResponse(bufio.NewReader(c), req)
}

// handshake does TLS on c, recording the presented chain without trusting
// it (it is verified next, against the cluster CA).
func (ev *EndpointEvidence) handshake(c net.Conn, serverName string) *tls.Conn {
	tc := tls.Client(c, &tls.Config{
		ServerName:         serverName,
		InsecureSkipVerify: true, // verified by verifyChain, against the cluster CA, before anything is trusted
		VerifyConnection: func(cs tls.ConnectionState) error {
			ev.Chain = cs.PeerCertificates
			return nil
		},
		NextProtos: []string{"http/1.1"},
	})
	_ = tc.SetDeadline(time.Now().Add(ev.bound))
	if ev.HandshakeErr = tc.Handshake(); ev.HandshakeErr != nil {
		return nil
	}
	if len(ev.Chain) == 0 {
		ev.HandshakeErr = errors.New("the server presented no certificate")
		return nil
	}
	return tc
}

// getVersion makes an anonymous GET /version on the verified connection.
// A redirect is recorded and never followed.
func (ev *EndpointEvidence) getVersion(tc *tls.Conn) {
	_ = tc.SetDeadline(time.Now().Add(ev.bound))
	req, _ := http.NewRequest(http.MethodGet, "https://"+net.JoinHostPort(ev.Host, ev.Port)+"/version", nil)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "nodeboot-doctor")
	sample := ClockSample{Reference: "API server", Sent: time.Now()}
	resp, err := roundTrip(tc, req)
	sample.Received = time.Now()
	if err != nil {
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	ev.Status, ev.Location = resp.StatusCode, resp.Header.Get("Location")
	if d, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
		sample.Date = d
		ev.Clock = sample
	}
	var v kubeapi.VersionInfo
	if resp.StatusCode == http.StatusOK && json.Unmarshal(body, &v) == nil && v.GitVersion != "" {
		ev.Version = &v
	}
}

// verifyChain checks the server chain against the cluster CAs for name.
func verifyChain(chain, cas []*x509.Certificate, name string, now time.Time) error {
	roots, inter := x509.NewCertPool(), x509.NewCertPool()
	for _, c := range cas {
		roots.AddCert(c)
	}
	for _, c := range chain[1:] {
		inter.AddCert(c)
	}
	_, err := chain[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter, DNSName: name, CurrentTime: now})
	return err
}
