package doctor

import (
	"context"
	"crypto/x509"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
	"github.com/nodeboot/nodeboot/internal/testing/pkitest"
	"github.com/nodeboot/nodeboot/internal/testing/proxytest"
)

// apiName is the API server's name in these tests: loopback is never
// proxied, so the kubelet's client sends only a name through a proxy.
// Every lookup of it is counted.
const apiName = "api.cluster.test"

// countingNetwork resolves apiName to 127.0.0.1 and counts lookups per name.
func countingNetwork(lookups map[string]*atomic.Int32) Network {
	return Network{StepBound: time.Second, LookupHost: func(_ context.Context, host string) ([]string, error) {
		if lookups[host] == nil {
			lookups[host] = &atomic.Int32{}
		}
		lookups[host].Add(1)
		if host == apiName || host == "localhost" {
			return []string{"127.0.0.1"}, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}}
}

// proxiedConn is the kubelet's connection to https://apiName:port through
// the proxy set in its environment as HTTPS_PROXY.
func proxiedConn(port, proxy string, noProxy string) Connection {
	c := connTo("https://" + apiName + ":" + port)
	c.Cluster.TLSServerName = "localhost"
	env := map[string]string{"HTTPS_PROXY": proxy}
	if noProxy != "" {
		env["NO_PROXY"] = noProxy
	}
	c.Proxy, c.ProxyVars = proxyFor(kubeapi.Cluster{}, env, func(string) string { return "/etc/environment (EnvironmentFile= in http-proxy.conf)" })
	return c
}

// TestProxyFailures breaks the kubelet's path through a proxy the ways
// real proxies do, each with a real CONNECT proxy in front of a real TLS
// API server, and checks the verdict names the proxy, its answer, and
// what NO_PROXY would need, never TLS or plain-HTTP ports.
func TestProxyFailures(t *testing.T) {
	clusterCA := pkitest.NewCA(t, "cluster-ca")
	srv, _ := tlsAPIServer(t, clusterCA, nil)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "https://"))
	inspectingCA := pkitest.NewCA(t, "corporate-inspection-ca")
	cases := []struct {
		name    string
		opts    proxytest.Options
		creds   string
		verdict Verdict
		summary []string
		action  []string
	}{
		{name: "tunnels", verdict: OK, summary: []string{"TLS verified", "through proxy"}},
		{name: "needs authentication", opts: proxytest.Options{Auth: "ops:s3cret"}, verdict: Fail,
			summary: []string{"proxy failure", "requires authentication", "407 Proxy Authentication Required"},
			action:  []string{"credentials in the proxy URL", "HTTPS_PROXY in /etc/environment", "add " + apiName + " to NO_PROXY"}},
		{name: "authenticated", opts: proxytest.Options{Auth: "ops:s3cret"}, creds: "ops:s3cret@", verdict: OK, summary: []string{"TLS verified"}},
		{name: "refuses the destination", opts: proxytest.Options{Status: http.StatusForbidden}, verdict: Fail,
			summary: []string{"proxy failure", "refuses CONNECT to " + apiName + ":" + port + " (403 Forbidden)"},
			action:  []string{"Allow " + apiName, "add " + apiName + " to NO_PROXY (it is not set"}},
		{name: "hangs on CONNECT", opts: proxytest.Options{Hang: true}, verdict: Fail,
			summary: []string{"proxy failure", "did not answer CONNECT"}, action: []string{"hangs on CONNECT", "NO_PROXY"}},
		{name: "inspects TLS", opts: proxytest.Options{Inspect: inspectingCA, InspectNames: pkitest.Spec{CN: apiName, DNS: []string{apiName, "localhost"}}},
			verdict: Fail, summary: []string{"TLS inspection", "CN=corporate-inspection-ca", "CN=cluster-ca"},
			action: []string{"do not replace it", "add " + apiName + " to NO_PROXY", "inspecting CA"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Hosts = map[string]string{apiName: "127.0.0.1"}
			p := proxytest.Start(t, tc.opts)
			lookups := map[string]*atomic.Int32{}
			conn := proxiedConn(port, "http://"+tc.creds+p.Addr, "")
			ev := probeEndpoint(context.Background(), countingNetwork(lookups), conn, casOf(clusterCA), time.Now())
			r := endpointVerdict(ev, time.Now())
			assertResult(t, r, tc.verdict, tc.summary, tc.action)
			if strings.Contains(r.Summary+r.Action+strings.Join(r.Evidence, ""), "s3cret") {
				t.Errorf("the proxy password shows:\n%+v", r)
			}
			if len(lookups) != 0 || len(p.Connects()) != 1 {
				t.Errorf("lookups %v (the proxy resolves the API server's name), CONNECTs %v", lookups, p.Connects())
			}
		})
	}
	t.Run("NO_PROXY covers the endpoint", func(t *testing.T) {
		p := proxytest.Start(t, proxytest.Options{Status: http.StatusForbidden})
		lookups := map[string]*atomic.Int32{}
		ev := probeEndpoint(context.Background(), countingNetwork(lookups), proxiedConn(port, p.URL, ".cluster.test"), casOf(clusterCA), time.Now())
		r := endpointVerdict(ev, time.Now())
		assertResult(t, r, OK, []string{"TLS verified"}, nil)
		if n := lookups[apiName]; n == nil || n.Load() != 1 || len(p.Connects()) != 0 {
			t.Errorf("lookups %v, want one of %s; CONNECTs %v", lookups, apiName, p.Connects())
		}
	})
}

func assertResult(t *testing.T, r Result, verdict Verdict, summary, action []string) {
	t.Helper()
	if r.Action != "" && strings.Count(strings.TrimSuffix(r.Action, "."), ". ") > 0 {
		t.Errorf("action is more than one sentence: %q", r.Action)
	}
	if r.Verdict != verdict {
		t.Errorf("verdict %s, want %s: %s\n%s", r.Verdict, verdict, r.Summary, strings.Join(r.Evidence, "\n"))
	}
	for _, w := range summary {
		if !strings.Contains(r.Summary, w) {
			t.Errorf("summary lacks %q: %s", w, r.Summary)
		}
	}
	for _, w := range action {
		if !strings.Contains(r.Action, w) {
			t.Errorf("action lacks %q: %s", w, r.Action)
		}
	}
}

// TestEndpointRedirectNotFollowed: an endpoint that redirects /version to
// plain HTTP fails, and the redirect is not followed.
func TestEndpointRedirectNotFollowed(t *testing.T) {
	clusterCA := pkitest.NewCA(t, "cluster-ca")
	var plainHits atomic.Int32
	plain := http.Server{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) { plainHits.Add(1) })}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	go plain.Serve(l)
	defer plain.Close()
	srv, _ := tlsAPIServer(t, clusterCA, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+l.Addr().String()+"/version", http.StatusFound)
	}))
	ev := probeEndpoint(context.Background(), Network{}, connTo(srv.URL), casOf(clusterCA), time.Now())
	r := endpointVerdict(ev, time.Now())
	assertResult(t, r, Fail, []string{"answered 302", "not followed", "plain HTTP"}, []string{"apiServerEndpoint"})
	if plainHits.Load() != 0 {
		t.Error("the redirect to plain HTTP was followed")
	}
}

// TestEndpointDNSLooksUpOnce: the API server's name is looked up once and
// the address found is the one dialled; a resolver that never answers is
// named with its servers and bounds, not as a missing name.
func TestEndpointDNSLooksUpOnce(t *testing.T) {
	clusterCA := pkitest.NewCA(t, "cluster-ca")
	srv, _ := tlsAPIServer(t, clusterCA, nil)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "https://"))
	lookups := map[string]*atomic.Int32{}
	var dialled []string
	nw := countingNetwork(lookups)
	nw.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dialled = append(dialled, addr)
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	conn := connTo("https://" + apiName + ":" + port)
	conn.Cluster.TLSServerName = "localhost"
	ev := probeEndpoint(context.Background(), nw, conn, casOf(clusterCA), time.Now())
	if r := endpointVerdict(ev, time.Now()); r.Verdict != OK || lookups[apiName].Load() != 1 || len(dialled) != 1 || dialled[0] != "127.0.0.1:"+port {
		t.Errorf("verdict %s (%s); lookups %d; dialled %v", r.Verdict, r.Summary, lookups[apiName].Load(), dialled)
	}

	silent, err := net.ListenPacket("udp", "127.0.0.1:0") // a resolver that never answers
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	res := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "udp", silent.LocalAddr().String())
	}}
	ev = probeEndpoint(context.Background(), Network{LookupHost: res.LookupHost, StepBound: time.Second}, connTo("https://"+apiName), casOf(clusterCA), time.Now())
	ev.Resolver = ResolverConf{Nameservers: []string{"10.0.0.2"}, Timeout: 5 * time.Second, Attempts: 2}
	r := endpointVerdict(ev, time.Now())
	assertResult(t, r, Fail, []string{"the resolver did not answer for " + apiName, "within 1", "10.0.0.2", "wait up to 10s"}, []string{"UDP and TCP 53"})
	if strings.Contains(r.Summary, "NXDOMAIN") {
		t.Errorf("a silent resolver reported as a missing name: %s", r.Summary)
	}
}

// TestLongChainSummarised: a server presenting 300 certificates is listed
// by its leaf, a few more and the count.
func TestLongChainSummarised(t *testing.T) {
	ca := pkitest.NewCA(t, "cluster-ca")
	chain := []*x509.Certificate{ca.Issue(t, pkitest.Spec{CN: "kube-apiserver", DNS: []string{"api"}}).Cert}
	junk := pkitest.NewCA(t, "junk").Cert
	for range 299 {
		chain = append(chain, junk)
	}
	lines := chainEvidence(chain)
	if len(lines) > maxChainShown+2 || !strings.Contains(strings.Join(lines, "\n"), "299 more certificates (a chain of 300") {
		t.Errorf("%d lines:\n%s", len(lines), strings.Join(lines, "\n"))
	}
}
