package doctor

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
	"github.com/nodeboot/nodeboot/internal/testing/pkitest"
)

// tlsAPIServer serves /version with a certificate from ca for 127.0.0.1.
func tlsAPIServer(t *testing.T, ca *pkitest.CA, h http.Handler) (*httptest.Server, *x509.Certificate) {
	t.Helper()
	leaf := ca.Issue(t, pkitest.Spec{CN: "kube-apiserver", DNS: []string{"localhost"}, IPs: []string{"127.0.0.1"}})
	pair, err := tls.X509KeyPair(leaf.CertPEM, leaf.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	if h == nil {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`{"major":"1","minor":"34","gitVersion":"v1.34.4"}`))
		})
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // handshakes the probes abort on purpose
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, leaf.Cert
}

func connTo(server string) Connection {
	noProxy := func(*http.Request) (*url.URL, error) { return nil, nil }
	return Connection{Kubeconfig: "/var/lib/kubelet/kubeconfig", Cluster: kubeapi.Cluster{Server: server, CertificateAuthority: "/etc/kubernetes/pki/ca.crt"}, Proxy: noProxy}
}

func casOf(cas ...*pkitest.CA) func(kubeapi.Cluster) ([]*x509.Certificate, error) {
	return func(kubeapi.Cluster) ([]*x509.Certificate, error) {
		var out []*x509.Certificate
		for _, c := range cas {
			out = append(out, c.Cert)
		}
		return out, nil
	}
}

func TestProbeEndpoint(t *testing.T) {
	ctx := context.Background()
	clusterCA, otherCA := pkitest.NewCA(t, "cluster-ca"), pkitest.NewCA(t, "some-other-ca")
	srv, leaf := tlsAPIServer(t, clusterCA, nil)

	t.Run("verified", func(t *testing.T) {
		ev := probeEndpoint(ctx, Network{}, connTo(srv.URL), casOf(clusterCA), time.Now())
		if !ev.Verified() || ev.Version == nil || ev.Version.GitVersion != "v1.34.4" || !ev.Clock.Valid() || ev.Status != 200 {
			t.Fatalf("evidence %+v", ev)
		}
		r := endpointVerdict(ev, time.Now())
		if r.Verdict != OK || !strings.Contains(r.Summary, "TLS verified") {
			t.Errorf("verdict %+v", r)
		}
	})
	t.Run("wrong CA, named with both fingerprints", func(t *testing.T) {
		ev := probeEndpoint(ctx, Network{}, connTo(srv.URL), casOf(otherCA), time.Now())
		r := endpointVerdict(ev, time.Now())
		all := r.Summary + "\n" + strings.Join(r.Evidence, "\n")
		for _, want := range []string{"wrong CA", "CN=cluster-ca", "CN=some-other-ca", Fingerprint(otherCA.Cert), Fingerprint(leaf)} {
			if !strings.Contains(all, want) {
				t.Errorf("report lacks %q:\n%s", want, all)
			}
		}
		if r.Verdict != Fail || ev.Version != nil || ev.Clock.Valid() {
			t.Errorf("verdict %s; version %v or clock %+v taken from an unverified server", r.Verdict, ev.Version, ev.Clock)
		}
	})
	t.Run("wrong port", func(t *testing.T) {
		l, _ := net.Listen("tcp", "127.0.0.1:0")
		addr := l.Addr().String()
		l.Close()
		ev := probeEndpoint(ctx, Network{}, connTo("https://"+addr), casOf(clusterCA), time.Now())
		r := endpointVerdict(ev, time.Now())
		_, port, _ := net.SplitHostPort(addr)
		if r.Verdict != Fail || !strings.Contains(r.Summary, "refused: nothing listens on port "+port) {
			t.Errorf("verdict %+v", r)
		}
	})
	t.Run("name does not resolve", func(t *testing.T) {
		nw := Network{LookupHost: func(context.Context, string) ([]string, error) {
			return nil, &net.DNSError{Err: "no such host", Name: "api.invalid", IsNotFound: true}
		}}
		ev := probeEndpoint(ctx, nw, connTo("https://api.invalid"), casOf(clusterCA), time.Now())
		if r := endpointVerdict(ev, time.Now()); r.Verdict != Fail || !strings.Contains(r.Summary, "cannot resolve api.invalid") {
			t.Errorf("verdict %+v", r)
		}
	})
	t.Run("not TLS", func(t *testing.T) {
		plain := httptest.NewServer(http.NotFoundHandler())
		defer plain.Close()
		ev := probeEndpoint(ctx, Network{}, connTo(strings.Replace(plain.URL, "http://", "https://", 1)), casOf(clusterCA), time.Now())
		if r := endpointVerdict(ev, time.Now()); r.Verdict != Fail || !strings.Contains(r.Summary, "TLS with") {
			t.Errorf("verdict %+v", r)
		}
	})
	t.Run("through a proxy", func(t *testing.T) {
		// Loopback is never proxied, so the API server has a name here.
		conn := connTo("https://api.example.com")
		conn.Proxy, conn.ProxyVars = proxyFor(kubeapi.Cluster{}, map[string]string{"HTTPS_PROXY": "http://user:pw@127.0.0.1:1", "NO_PROXY": "10.0.0.0/8"}, fromTest)
		nw := Network{LookupHost: func(context.Context, string) ([]string, error) { return []string{"192.0.2.1"}, nil }}
		ev := probeEndpoint(ctx, nw, conn, casOf(clusterCA), time.Now())
		r := endpointVerdict(ev, time.Now())
		if ev.Dialed != "127.0.0.1:1" || r.Verdict != Fail || !strings.Contains(r.Summary, "refused") ||
			!strings.Contains(strings.Join(r.Evidence, "\n"), "through proxy http://user:xxxxx@127.0.0.1:1") {
			t.Errorf("evidence %+v verdict %+v", ev, r)
		}
	})
}

func TestEndpointVerdict(t *testing.T) {
	clusterCA := pkitest.NewCA(t, "cluster-ca")
	now := time.Now()
	leaf := clusterCA.Issue(t, pkitest.Spec{CN: "kube-apiserver", DNS: []string{"api.example.com"}}).Cert
	expired := clusterCA.Issue(t, pkitest.Spec{CN: "kube-apiserver", DNS: []string{"api.example.com"}, NotBefore: now.Add(-48 * time.Hour), NotAfter: now.Add(-24 * time.Hour)}).Cert
	base := func(chain ...*x509.Certificate) EndpointEvidence {
		return EndpointEvidence{Conn: connTo("https://api.example.com"), Host: "api.example.com", Port: "443", Lookup: &DNSLookup{Name: "api.example.com", Addrs: []string{"10.0.0.1"}},
			Dialed: "api.example.com:443", CAs: []*x509.Certificate{clusterCA.Cert}, Chain: chain, Status: 401}
	}
	with := func(ev EndpointEvidence, f func(*EndpointEvidence)) EndpointEvidence { f(&ev); return ev }
	verified := base(leaf)
	checkVerdicts(t, CheckEndpoint, []verdictCase{
		{name: "verified", got: endpointVerdict(verified, now), verdict: OK, summary: []string{"reached", "401"},
			evidence: []string{"resolves to 10.0.0.1", "no proxy", "configured cluster CA: CN=cluster-ca"}},
		{name: "no kubeconfig", got: endpointVerdict(EndpointEvidence{Conn: Connection{Err: errors.New("no kubeconfig for the kubelet: open x: no such file")}}, now),
			verdict: Fail, summary: []string{"no kubeconfig"}},
		{name: "not https", got: endpointVerdict(with(base(), func(e *EndpointEvidence) { e.URLErr = errors.New(`server "api:443" is not an https:// URL`) }), now),
			verdict: Fail, summary: []string{"https://"}},
		{name: "timeout", got: endpointVerdict(with(base(), func(e *EndpointEvidence) { e.TCPErr = context.DeadlineExceeded; e.TCPTook = 5 * time.Second }), now),
			verdict: Fail, summary: []string{"timed out after 5s"}},
		{name: "no route", got: endpointVerdict(with(base(), func(e *EndpointEvidence) { e.TCPErr = opErr(113) }), now),
			verdict: Fail, summary: []string{"no route"}},
		{name: "CA file unusable", got: endpointVerdict(with(base(leaf), func(e *EndpointEvidence) { e.CAErr = errors.New("no PEM certificate") }), now),
			verdict: Fail, summary: []string{"cluster CA cannot be used"}},
		{name: "expired server certificate", got: endpointVerdict(with(base(expired), func(e *EndpointEvidence) {
			e.VerifyErr = verifyChain(e.Chain, e.CAs, "api.example.com", now)
		}), now), verdict: Fail, summary: []string{"not valid at this node's time"}},
		{name: "wrong host name", got: endpointVerdict(with(base(leaf), func(e *EndpointEvidence) {
			e.VerifyErr = verifyChain(e.Chain, e.CAs, "10.0.0.1", now)
		}), now), verdict: Fail, summary: []string{"not valid for 10.0.0.1", "api.example.com"}},
	})
}

func fromTest(name string) string { return "the test's " + name }

func TestProxyFor(t *testing.T) {
	req := &http.Request{URL: &url.URL{Scheme: "https", Host: "10.1.2.3:443"}}
	for name, tc := range map[string]struct {
		cluster kubeapi.Cluster
		env     map[string]string
		want    string
	}{
		"none":                     {want: ""},
		"HTTPS_PROXY":              {env: map[string]string{"HTTPS_PROXY": "http://proxy:3128"}, want: "http://proxy:3128"},
		"lower case":               {env: map[string]string{"https_proxy": "http://proxy:3128"}, want: "http://proxy:3128"},
		"NO_PROXY covers the host": {env: map[string]string{"HTTPS_PROXY": "http://proxy:3128", "NO_PROXY": "10.0.0.0/8"}, want: ""},
		"kubeconfig proxy-url wins": {cluster: kubeapi.Cluster{ProxyURL: "http://kc-proxy:8080"},
			env: map[string]string{"HTTPS_PROXY": "http://proxy:3128"}, want: "http://kc-proxy:8080"},
	} {
		fn, _ := proxyFor(tc.cluster, tc.env, fromTest)
		u, err := fn(req)
		got := ""
		if u != nil {
			got = u.String()
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: proxy %q, %v; want %q", name, got, err, tc.want)
		}
	}
}
