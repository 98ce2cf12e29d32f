package awstest

import (
	"io"
	"net/http"
	"net/url"
	"sync"
	"testing"
)

// Proxy is a plain-HTTP forward proxy for tests: it records every request it
// is asked to forward and sends it to Upstream (when set) or to the host the
// client asked for. Point HTTP_PROXY at URL.
type Proxy struct {
	// URL of the proxy itself.
	URL string
	// Upstream, when non-nil, receives every request (the scheme and host of
	// the requested URL are replaced), so that clients can use host names
	// that do not resolve.
	Upstream *url.URL

	mu       sync.Mutex
	requests []string
}

// NewProxy starts a proxy forwarding to upstream ("" = the requested host).
func NewProxy(t testing.TB, upstream string) *Proxy {
	t.Helper()
	p := &Proxy{}
	if upstream != "" {
		u, err := url.Parse(upstream)
		if err != nil {
			t.Fatalf("awstest: proxy upstream: %v", err)
		}
		p.Upstream = u
	}
	p.URL = startLoopback(t, http.HandlerFunc(p.serve)).URL
	return p
}

// Requests returns "METHOD host/path" of every request forwarded, in order.
func (p *Proxy) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// directTransport never proxies, so a proxy pointed at by HTTP_PROXY cannot
// loop to itself.
var directTransport = &http.Transport{Proxy: nil}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.requests = append(p.requests, r.Method+" "+r.URL.Host+r.URL.Path)
	p.mu.Unlock()
	if !r.URL.IsAbs() {
		http.Error(w, "not a proxy request", http.StatusBadRequest)
		return
	}
	target := *r.URL
	if p.Upstream != nil {
		target.Scheme, target.Host = p.Upstream.Scheme, p.Upstream.Host
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, target.String(), r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	out.Host = r.Host
	out.ContentLength = r.ContentLength
	resp, err := directTransport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}
