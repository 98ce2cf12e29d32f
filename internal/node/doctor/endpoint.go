package doctor

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/http/httpproxy"

	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
)

// endpointStepBound bounds DNS, TCP and TLS+HTTP each.
const endpointStepBound = 5 * time.Second

// Connection is how the kubelet reaches the API server: its kubeconfig,
// cluster, user and the proxy its environment selects.
type Connection struct {
	// Kubeconfig is the path used; Bootstrap is true when it is the
	// bootstrap kubeconfig (TLS bootstrap not done yet).
	Kubeconfig string
	Bootstrap  bool
	Cluster    kubeapi.Cluster
	User       kubeapi.User
	// Proxy selects the proxy for a request, from the kubelet's
	// environment (HTTPS_PROXY, NO_PROXY) or the kubeconfig's proxy-url.
	Proxy     kubeapi.ProxyFunc
	ProxyVars []string
	Err       error
}

// kubeletConnection reads the kubeconfig the kubelet uses: --kubeconfig
// once it exists, else --bootstrap-kubeconfig.
func kubeletConnection(f Files, k KubeletFacts) Connection {
	c := Connection{Kubeconfig: k.Kubeconfig}
	if !f.Exists(c.Kubeconfig) && k.BootstrapKubeconfig != "" && f.Exists(k.BootstrapKubeconfig) {
		c.Kubeconfig, c.Bootstrap = k.BootstrapKubeconfig, true
	}
	data, err := f.Read(c.Kubeconfig)
	if err != nil {
		c.Err = fmt.Errorf("no kubeconfig for the kubelet: %w", err)
		if k.ArgsErr != nil {
			c.Err = fmt.Errorf("%w (and its flags: %v)", c.Err, k.ArgsErr)
		}
		return c
	}
	kc, err := kubeapi.ParseKubeconfig(data)
	if err == nil {
		c.Cluster, c.User, err = kc.Current()
	}
	if err != nil {
		c.Err = fmt.Errorf("%s: %w", c.Kubeconfig, err)
		return c
	}
	c.Proxy, c.ProxyVars = proxyFor(c.Cluster, k.Env)
	return c
}

// proxyFor returns the proxy choice of the kubelet's client: the
// kubeconfig's proxy-url, else its environment (as http.ProxyFromEnvironment).
func proxyFor(c kubeapi.Cluster, env map[string]string) (kubeapi.ProxyFunc, []string) {
	if c.ProxyURL != "" {
		u, err := url.Parse(c.ProxyURL)
		return func(*http.Request) (*url.URL, error) { return u, err }, []string{"proxy-url=" + c.ProxyURL}
	}
	get := func(names ...string) string {
		for _, n := range names {
			if v := env[n]; v != "" {
				return v
			}
		}
		return ""
	}
	cfg := httpproxy.Config{HTTPProxy: get("HTTP_PROXY", "http_proxy"), HTTPSProxy: get("HTTPS_PROXY", "https_proxy"), NoProxy: get("NO_PROXY", "no_proxy")}
	var vars []string
	for _, kv := range [][2]string{{"HTTPS_PROXY", cfg.HTTPSProxy}, {"HTTP_PROXY", cfg.HTTPProxy}, {"NO_PROXY", cfg.NoProxy}} {
		if kv[1] != "" {
			vars = append(vars, kv[0]+"="+kv[1])
		}
	}
	fn := cfg.ProxyFunc()
	return func(r *http.Request) (*url.URL, error) { return fn(r.URL) }, vars
}

// EndpointEvidence is what reaching the API server showed, step by step.
type EndpointEvidence struct {
	Conn Connection
	// Host and Port of the API server URL; URLErr when it is unusable.
	Host, Port string
	URLErr     error
	// Proxy is the proxy the request goes through, if any.
	Proxy    *url.URL
	ProxyErr error
	// Addrs are the resolved addresses (none for an IP literal).
	Addrs  []string
	DNSErr error
	// Dialed is the address connected to (the proxy's when there is one).
	Dialed  string
	TCPErr  error
	TCPTook time.Duration
	// CAs are the configured cluster CAs (CAErr when unusable).
	CAs   []*x509.Certificate
	CAErr error
	// Chain is what the server presented; HandshakeErr when TLS failed.
	Chain        []*x509.Certificate
	HandshakeErr error
	// VerifyErr is the chain checked against CAs for the host name.
	VerifyErr error
	// Status is the HTTP status of an anonymous GET /version.
	Status int
	// Version is the answer (only taken when the chain verified).
	Version *kubeapi.VersionInfo
	Clock   ClockSample
}

// Verified reports whether the API server proved to be the cluster's.
func (e EndpointEvidence) Verified() bool {
	return e.Conn.Err == nil && e.URLErr == nil && e.HandshakeErr == nil && e.CAErr == nil && e.VerifyErr == nil && len(e.Chain) > 0
}

// Network lets tests replace name resolution and dialling.
type Network struct {
	LookupHost  func(ctx context.Context, host string) ([]string, error)
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
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

// probeEndpoint walks DNS, TCP, TLS and an anonymous GET /version.
func probeEndpoint(ctx context.Context, nw Network, conn Connection, cas func(kubeapi.Cluster) ([]*x509.Certificate, error), now time.Time) EndpointEvidence {
	ev := EndpointEvidence{Conn: conn}
	if conn.Err != nil {
		return ev
	}
	u, err := url.Parse(conn.Cluster.Server)
	if err != nil || u.Scheme != "https" || u.Hostname() == "" {
		ev.URLErr = fmt.Errorf("server %q is not an https:// URL", conn.Cluster.Server)
		return ev
	}
	ev.Host, ev.Port = u.Hostname(), u.Port()
	if ev.Port == "" {
		ev.Port = "443"
	}
	ev.Proxy, ev.ProxyErr = conn.Proxy(&http.Request{URL: u})
	if net.ParseIP(ev.Host) == nil {
		dctx, cancel := context.WithTimeout(ctx, endpointStepBound)
		ev.Addrs, ev.DNSErr = nw.lookup(dctx, ev.Host)
		cancel()
	}
	ev.CAs, ev.CAErr = cas(conn.Cluster)
	ev.Dialed = net.JoinHostPort(ev.Host, ev.Port)
	if ev.Proxy != nil {
		ev.Dialed = ev.Proxy.Host
	}
	tctx, cancel := context.WithTimeout(ctx, endpointStepBound)
	start := time.Now()
	c, err := nw.dial(tctx, "tcp", ev.Dialed)
	ev.TCPTook, ev.TCPErr = time.Since(start), err
	cancel()
	if err != nil {
		return ev
	}
	c.Close()
	ev.tlsAndVersion(ctx, nw, u, conn, now)
	return ev
}

// tlsAndVersion makes an anonymous GET /version, recording the presented
// chain without trusting it, then verifies the chain against the CAs. No
// credential is ever sent here.
func (ev *EndpointEvidence) tlsAndVersion(ctx context.Context, nw Network, u *url.URL, conn Connection, now time.Time) {
	serverName := firstNonEmpty(conn.Cluster.TLSServerName, ev.Host)
	var chain []*x509.Certificate
	tr := &http.Transport{
		Proxy:       conn.Proxy,
		DialContext: nw.dial,
		TLSClientConfig: &tls.Config{
			ServerName:         serverName,
			InsecureSkipVerify: true, // verified below, against the cluster CA, before anything is trusted
			VerifyConnection: func(cs tls.ConnectionState) error {
				chain = cs.PeerCertificates
				return nil
			},
		},
		TLSHandshakeTimeout: endpointStepBound,
	}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, endpointStepBound)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(u.String(), "/")+"/version", nil)
	if err != nil {
		ev.HandshakeErr = err
		return
	}
	sample := ClockSample{Reference: "API server", Sent: time.Now()}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	sample.Received = time.Now()
	ev.Chain = chain
	if err != nil {
		ev.HandshakeErr = err
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	ev.Status = resp.StatusCode
	if d, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
		sample.Date = d
		ev.Clock = sample
	}
	if len(chain) == 0 {
		ev.HandshakeErr = errors.New("the server presented no certificate")
		return
	}
	if ev.CAErr != nil {
		return
	}
	ev.VerifyErr = verifyChain(chain, ev.CAs, serverName, now)
	if ev.VerifyErr == nil && resp.StatusCode == http.StatusOK {
		var v kubeapi.VersionInfo
		if json.Unmarshal(body, &v) == nil && v.GitVersion != "" {
			ev.Version = &v
		}
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

// Fingerprint is a certificate's SHA-256 in openssl's notation.
func Fingerprint(c *x509.Certificate) string {
	sum := sha256.Sum256(c.Raw)
	h := strings.ToUpper(hex.EncodeToString(sum[:]))
	var b strings.Builder
	for i := 0; i < len(h); i += 2 {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(h[i : i+2])
	}
	return b.String()
}

func describeCert(c *x509.Certificate) string {
	return fmt.Sprintf("%s, SHA-256 %s", c.Subject, Fingerprint(c))
}

// endpointVerdict judges the connection, naming the first step that broke.
func endpointVerdict(ev EndpointEvidence, now time.Time) Result {
	r := Result{ID: CheckEndpoint}
	if ev.Conn.Err != nil {
		r.Verdict, r.Summary = Fail, ev.Conn.Err.Error()
		r.Action = "Run `nodeboot init` (nodeboot-config.service) to render the kubelet's files, and read its output."
		return r
	}
	server := ev.Conn.Cluster.Server
	r.Evidence = append(r.Evidence, fmt.Sprintf("kubeconfig %s: server %s", ev.Conn.Kubeconfig, server))
	if ev.URLErr != nil {
		r.Verdict, r.Summary = Fail, ev.URLErr.Error()
		r.Action = "Set cluster.apiServerEndpoint to the API server's https:// URL and run `nodeboot init` again."
		return r
	}
	r.Evidence = append(r.Evidence, proxyEvidence(ev))
	if len(ev.Addrs) > 0 {
		r.Evidence = append(r.Evidence, fmt.Sprintf("%s resolves to %s", ev.Host, strings.Join(ev.Addrs, ", ")))
	}
	switch {
	case ev.DNSErr != nil && ev.Proxy == nil:
		r.Verdict, r.Summary = Fail, fmt.Sprintf("cannot resolve %s: %v", ev.Host, ev.DNSErr)
		r.Action = "Check the host in cluster.apiServerEndpoint and the VPC's DNS (enableDnsSupport and enableDnsHostnames; a private endpoint needs its Route 53 zone associated with the VPC)."
		return r
	case ev.ProxyErr != nil:
		r.Verdict, r.Summary = Fail, "the kubelet's proxy setting is unusable: "+ev.ProxyErr.Error()
		r.Action = "Fix HTTPS_PROXY in spec.instance.environment (or the kubeconfig's proxy-url)."
		return r
	case ev.TCPErr != nil:
		return tcpFailure(r, ev)
	}
	r.Evidence = append(r.Evidence, fmt.Sprintf("TCP connect to %s in %s", ev.Dialed, ms(ev.TCPTook)))
	switch {
	case ev.HandshakeErr != nil:
		r.Verdict, r.Summary = Fail, fmt.Sprintf("TLS with %s failed: %v", ev.Dialed, ev.HandshakeErr)
		r.Action = "Check that cluster.apiServerEndpoint is the API server's HTTPS address, not another service or a plain-HTTP port."
		return r
	case ev.CAErr != nil:
		r.Verdict, r.Summary = Fail, "the configured cluster CA cannot be used: "+ev.CAErr.Error()
		r.Action = "Put the cluster's CA certificate in cluster.certificateAuthority (aws eks describe-cluster --query cluster.certificateAuthority.data) and run `nodeboot init` again."
		return r
	}
	for _, ca := range ev.CAs {
		r.Evidence = append(r.Evidence, "configured cluster CA: "+describeCert(ca))
	}
	leaf := ev.Chain[0]
	r.Evidence = append(r.Evidence, fmt.Sprintf("API server certificate: %s, issued by %s, SHA-256 %s", leaf.Subject, leaf.Issuer, Fingerprint(leaf)))
	for _, c := range ev.Chain[1:] {
		r.Evidence = append(r.Evidence, "presented with: "+describeCert(c))
	}
	if ev.VerifyErr != nil {
		return verifyFailure(r, ev, now)
	}
	r.Verdict = OK
	r.Summary = fmt.Sprintf("%s reached; TLS verified with the cluster CA", server)
	if ev.Status != 0 {
		r.Summary += fmt.Sprintf("; anonymous GET /version answered %d", ev.Status)
	}
	return r
}

func proxyEvidence(ev EndpointEvidence) string {
	vars := "the kubelet's environment sets no proxy"
	if len(ev.Conn.ProxyVars) > 0 {
		vars = "the kubelet's proxy settings: " + strings.Join(ev.Conn.ProxyVars, " ")
	}
	if ev.Proxy == nil {
		return "no proxy (" + vars + ")"
	}
	return "through proxy " + ev.Proxy.Redacted() + " (" + vars + ")"
}

func tcpFailure(r Result, ev EndpointEvidence) Result {
	r.Verdict = Fail
	what := "the API server"
	if ev.Proxy != nil {
		what = "the proxy"
	}
	switch netCause(ev.TCPErr) {
	case causeRefused:
		_, port, _ := net.SplitHostPort(ev.Dialed)
		r.Summary = fmt.Sprintf("TCP connect to %s refused: nothing listens on port %s", ev.Dialed, port)
		r.Action = fmt.Sprintf("Check the port of %s (EKS endpoints serve 443) and that %s is running.", ev.Conn.Cluster.Server, what)
	case causeTimeout:
		r.Summary = fmt.Sprintf("TCP connect to %s timed out after %s", ev.Dialed, ms(ev.TCPTook))
		r.Action = "Open the path to " + what + ": security groups (443/tcp from the node), network ACLs and routes; an EKS public endpoint may allow only some CIDRs while private access is off."
	case causeUnreachable:
		r.Summary = fmt.Sprintf("no route to %s: %v", ev.Dialed, ev.TCPErr)
		r.Action = "Check the node's routes (a private subnet needs a NAT gateway or VPC endpoints to reach a public endpoint)."
	default:
		r.Summary = fmt.Sprintf("TCP connect to %s failed: %v", ev.Dialed, ev.TCPErr)
		r.Action = "Check the network path to " + what + "."
	}
	return r
}

func verifyFailure(r Result, ev EndpointEvidence, now time.Time) Result {
	r.Verdict = Fail
	leaf := ev.Chain[0]
	var unknown x509.UnknownAuthorityError
	var invalid x509.CertificateInvalidError
	var host x509.HostnameError
	switch {
	case errors.As(ev.VerifyErr, &unknown):
		top := ev.Chain[len(ev.Chain)-1]
		r.Summary = fmt.Sprintf("wrong CA: the API server's certificate (issued by %s) is not signed by the configured cluster CA (%s)", top.Issuer, caNames(ev.CAs))
		r.Evidence = append(r.Evidence, fmt.Sprintf("server certificate's authority key ID %s; configured CA's subject key ID %s",
			keyID(leaf.AuthorityKeyId), caKeyIDs(ev.CAs)))
		r.Action = "Put the cluster's own CA in cluster.certificateAuthority (aws eks describe-cluster --query cluster.certificateAuthority.data) and run `nodeboot init` again."
	case errors.As(ev.VerifyErr, &invalid) && invalid.Reason == x509.Expired:
		r.Summary = fmt.Sprintf("the API server's certificate is not valid at this node's time %s (valid %s to %s)",
			now.UTC().Format(time.RFC3339), leaf.NotBefore.UTC().Format(time.RFC3339), leaf.NotAfter.UTC().Format(time.RFC3339))
		r.Action = "Fix the node's clock if the clock check shows an offset; otherwise the API server's certificate must be renewed."
	case errors.As(ev.VerifyErr, &host):
		r.Summary = fmt.Sprintf("the API server's certificate is not valid for %s (it names %s)", host.Host, strings.Join(certNames(leaf), ", "))
		r.Action = "Use an endpoint name the certificate was issued for in cluster.apiServerEndpoint."
	default:
		r.Summary = "the API server's certificate does not verify: " + ev.VerifyErr.Error()
		r.Action = "Check cluster.certificateAuthority and cluster.apiServerEndpoint against the cluster's own values."
	}
	return r
}

func caNames(cas []*x509.Certificate) string {
	var names []string
	for _, c := range cas {
		names = append(names, c.Subject.String())
	}
	return strings.Join(names, ", ")
}

func caKeyIDs(cas []*x509.Certificate) string {
	var ids []string
	for _, c := range cas {
		ids = append(ids, keyID(c.SubjectKeyId))
	}
	return strings.Join(ids, ", ")
}

func keyID(b []byte) string {
	if len(b) == 0 {
		return "(none)"
	}
	return strings.ToUpper(hex.EncodeToString(b))
}

func certNames(c *x509.Certificate) []string {
	names := append([]string{}, c.DNSNames...)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	return names
}
