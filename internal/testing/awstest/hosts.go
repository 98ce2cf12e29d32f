package awstest

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/pkitest"
)

// Hosts is an HTTPS forward proxy (HTTP CONNECT) that answers AWS's public
// endpoint names with local handlers, for a program that calls AWS over
// HTTPS with Go's default transport and cannot be pointed elsewhere (the
// EKS authenticator sends each token's presigned URL to
// sts.REGION.amazonaws.com itself). Give that program the variables of Env:
// HTTPS_PROXY sends its connections here, and SSL_CERT_FILE makes it trust
// the certificates Hosts issues for each name from its own CA. A CONNECT to
// any other host is refused (403), so nothing leaves the machine.
type Hosts struct {
	// URL is the proxy ("http://127.0.0.1:PORT").
	URL string
	// CAFile holds the CA certificate (PEM) every host's certificate chains to.
	CAFile string

	tlsAddr  string
	mu       sync.Mutex
	handlers map[string]http.Handler
	connects []string
}

// NewHosts starts the proxy and the TLS server behind it; handlers maps a
// host name ("sts.us-west-2.amazonaws.com") to what answers it. Both stop
// when the test ends.
func NewHosts(t testing.TB, handlers map[string]http.Handler) *Hosts {
	t.Helper()
	ca := pkitest.NewCA(t, "awstest hosts CA")
	h := &Hosts{handlers: map[string]http.Handler{}, CAFile: filepath.Join(t.TempDir(), "ca.pem")}
	if err := os.WriteFile(h.CAFile, ca.PEM, 0o644); err != nil {
		t.Fatalf("awstest: %v", err)
	}
	var names []string
	for name, handler := range handlers {
		h.handlers[name] = handler
		names = append(names, name)
	}
	pair := ca.Issue(t, pkitest.Spec{CN: "awstest", DNS: names})
	cert, err := tls.X509KeyPair(append(pair.CertPEM, ca.PEM...), pair.KeyPEM)
	if err != nil {
		t.Fatalf("awstest: %v", err)
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatalf("awstest: listen: %v", err)
	}
	h.tlsAddr = l.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(h.route)}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	h.URL = startLoopback(t, http.HandlerFunc(h.connect)).URL
	return h
}

// Env returns the variables that route a process's HTTPS calls to the
// known hosts through the proxy: HTTPS_PROXY, and the CA in SSL_CERT_FILE
// (Go's roots) and AWS_CA_BUNDLE (which the AWS SDKs load instead of the
// system roots when it is set, as it may be in the caller's environment).
// SSL_CERT_DIR is emptied so that nothing else is trusted.
func (h *Hosts) Env() []string {
	return []string{"HTTPS_PROXY=" + h.URL, "https_proxy=" + h.URL, "NO_PROXY=", "no_proxy=",
		"SSL_CERT_FILE=" + h.CAFile, "SSL_CERT_DIR=", "AWS_CA_BUNDLE=" + h.CAFile}
}

// Connects returns the host:port of every CONNECT asked for, in order,
// refused ones included.
func (h *Hosts) Connects() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.connects)
}

// connect tunnels a CONNECT for a known host to the TLS server.
func (h *Hosts) connect(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.connects = append(h.connects, r.Host)
	_, known := h.handlers[hostOnly(r.Host)]
	h.mu.Unlock()
	if r.Method != http.MethodConnect || !known {
		http.Error(w, "awstest hosts: no route to "+r.Host, http.StatusForbidden)
		return
	}
	upstream, err := net.Dial("tcp", h.tlsAddr)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		upstream.Close()
		http.Error(w, "cannot hijack", http.StatusInternalServerError)
		return
	}
	client, buf, err := hj.Hijack()
	if err != nil {
		upstream.Close()
		return
	}
	client.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
	go pipe(upstream, io.MultiReader(buf, client))
	pipe(client, upstream)
	upstream.Close()
	client.Close()
}

// pipe copies until either side ends.
func pipe(dst io.WriteCloser, src io.Reader) {
	io.Copy(dst, src)
	if c, ok := dst.(interface{ CloseWrite() error }); ok {
		c.CloseWrite()
	}
}

// route sends a request arriving through the tunnel to its host's handler.
func (h *Hosts) route(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	handler, ok := h.handlers[hostOnly(r.Host)]
	h.mu.Unlock()
	if !ok {
		http.Error(w, "awstest hosts: unknown host "+r.Host, http.StatusMisdirectedRequest)
		return
	}
	handler.ServeHTTP(w, r)
}

func hostOnly(hostport string) string {
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		return host
	}
	return strings.TrimSuffix(hostport, ".")
}
