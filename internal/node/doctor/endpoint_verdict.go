package doctor

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

// maxChainShown bounds the certificates of a presented chain listed one
// by one; a longer chain is summarised.
const maxChainShown = 4

// endpointStage judges one step of reaching the API server: it adds its
// evidence and reports whether the verdict is decided (a failure).
type endpointStage func(r *Result, ev EndpointEvidence, now time.Time) bool

// endpointVerdict judges the connection, naming the first step that broke.
func endpointVerdict(ev EndpointEvidence, now time.Time) Result {
	r := Result{ID: CheckEndpoint}
	if ev.Conn.Err != nil {
		r.Verdict, r.Summary = Fail, ev.Conn.Err.Error()
		r.Action = "Run `nodeboot init` (nodeboot-config.service) to render the kubelet's files, and read its output."
		return r
	}
	r.Evidence = append(r.Evidence, fmt.Sprintf("kubeconfig %s: server %s", ev.Conn.Kubeconfig, ev.Conn.Cluster.Server))
	if ev.URLErr != nil {
		r.Verdict, r.Summary = Fail, ev.URLErr.Error()
		r.Action = "Set cluster.apiServerEndpoint to the API server's https:// URL and run `nodeboot init` again."
		return r
	}
	r.Evidence = append(r.Evidence, proxyEvidence(ev))
	for _, n := range ev.Conn.UnitNotes {
		r.Evidence = append(r.Evidence, "kubelet.service: systemd ignores or fails on "+n)
	}
	for _, stage := range []endpointStage{proxySettingStage, dnsStage, tcpStage, tunnelStage, handshakeStage, caStage, chainStage, answerStage} {
		if stage(&r, ev, now) {
			r.Verdict = Fail
			return r
		}
	}
	r.Verdict = OK
	r.Summary = fmt.Sprintf("%s reached; TLS verified with the cluster CA; anonymous GET /version answered %d", ev.Conn.Cluster.Server, ev.Status)
	if ev.Proxy != nil {
		r.Summary += " (through proxy " + ev.Proxy.Redacted() + ")"
	}
	return r
}

// proxyEvidence says which proxy the kubelet uses and where it is set.
func proxyEvidence(ev EndpointEvidence) string {
	var vars []string
	for _, s := range ev.Conn.ProxyVars {
		vars = append(vars, s.String()+" (from "+s.Source+")")
	}
	settings := "the kubelet's environment sets no proxy"
	if len(vars) > 0 {
		settings = "the kubelet's proxy settings: " + strings.Join(vars, "; ")
	}
	if len(ev.Conn.StaleProxyVars) > 0 {
		settings += "; kubelet.service now sets " + strings.Join(ev.Conn.StaleProxyVars, ", ") +
			" otherwise than the running kubelet has them: restart the kubelet to apply its unit's proxy"
	}
	if ev.Proxy == nil {
		return "no proxy for " + ev.Host + " (" + settings + ")"
	}
	return "through proxy " + ev.Proxy.Redacted() + " (" + settings + ")"
}

func proxySettingStage(r *Result, ev EndpointEvidence, _ time.Time) bool {
	if ev.ProxyErr == nil {
		return false
	}
	r.Summary = "the kubelet's proxy setting is unusable: " + ev.ProxyErr.Error()
	r.Action = "Fix the proxy URL " + whereProxySet(ev) + " (scheme://[user:password@]host:port)."
	return true
}

// whereProxySet names where the proxy in use is set.
func whereProxySet(ev EndpointEvidence) string {
	for _, name := range []string{"proxy-url", "HTTPS_PROXY"} {
		if s, ok := ev.Conn.setting(name); ok {
			return name + " in " + s.Source
		}
	}
	return "HTTPS_PROXY where the kubelet's environment sets it"
}

func dnsStage(r *Result, ev EndpointEvidence, _ time.Time) bool {
	l := ev.Lookup
	if l == nil {
		return false
	}
	what := l.Name
	if ev.Proxy != nil {
		what = "the proxy's host " + l.Name
	}
	if l.Err == nil {
		r.Evidence = append(r.Evidence, fmt.Sprintf("%s resolves to %s (one lookup, %s)", l.Name, strings.Join(l.Addrs, ", "), ms(l.Took)))
		return false
	}
	r.Evidence = append(r.Evidence, ev.Resolver.String())
	switch {
	case l.NotFound():
		r.Summary = fmt.Sprintf("cannot resolve %s: no such name (NXDOMAIN)", what)
		r.Action = "Check the host in cluster.apiServerEndpoint (or the proxy URL) and the VPC's DNS (enableDnsSupport and enableDnsHostnames; a private endpoint needs its Route 53 zone associated with the VPC)."
	case l.TimedOut():
		r.Summary = fmt.Sprintf("the resolver did not answer for %s within %s (%s; the kubelet's own lookups wait up to %s)",
			what, ms(l.Took), strings.Join(ev.Resolver.Nameservers, ", "), ev.Resolver.Wait())
		r.Action = "Make the nameservers in /etc/resolv.conf answer from this host: the VPC resolver (VPC CIDR base + 2, or 169.254.169.253) needs UDP and TCP 53 open in the security groups and network ACLs, and systemd-resolved, if used, must be running."
	default:
		r.Summary = fmt.Sprintf("cannot resolve %s: %v", what, l.Err)
		r.Action = "Check /etc/resolv.conf and the resolver it names."
	}
	return true
}

func tcpStage(r *Result, ev EndpointEvidence, _ time.Time) bool {
	if ev.TCPErr == nil {
		r.Evidence = append(r.Evidence, fmt.Sprintf("TCP connect to %s in %s", ev.Dialed, ms(ev.TCPTook)))
		return false
	}
	*r = tcpFailure(*r, ev)
	return true
}

func tcpFailure(r Result, ev EndpointEvidence) Result {
	what := "the API server"
	if ev.Proxy != nil {
		what = "the proxy " + ev.Proxy.Redacted()
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
	if ev.Proxy != nil {
		r.Summary = "proxy unreachable: " + r.Summary
	}
	return r
}

func tunnelStage(r *Result, ev EndpointEvidence, _ time.Time) bool {
	t := ev.Tunnel
	if t == nil {
		return false
	}
	proxy := ev.Proxy.Redacted()
	if t.Err == nil && t.Status == http.StatusOK {
		r.Evidence = append(r.Evidence, fmt.Sprintf("proxy %s opened a tunnel to %s (CONNECT answered 200 in %s)", proxy, t.Target, ms(t.Took)))
		return false
	}
	bypass := noProxyAdvice(ev)
	switch {
	case t.Err != nil && netCause(t.Err) == causeTimeout:
		r.Summary = fmt.Sprintf("proxy failure: %s accepted the connection but did not answer CONNECT %s within %s", proxy, t.Target, ms(t.Took))
		r.Action = "The proxy hangs on CONNECT: check its health and its upstream connectivity, or " + bypass
	case t.Err != nil:
		r.Summary = fmt.Sprintf("proxy failure: %s closed the connection without answering CONNECT %s: %v", proxy, t.Target, t.Err)
		r.Action = "Check that " + proxy + " is an HTTP proxy that supports CONNECT, or " + bypass
	case t.Status == http.StatusProxyAuthRequired:
		r.Summary = fmt.Sprintf("proxy failure: %s requires authentication (CONNECT %s answered 407 Proxy Authentication Required)", proxy, t.Target)
		r.Action = "Put the proxy's credentials in the proxy URL (http://user:password@host:port) " + whereProxySet(ev) + ", or " + bypass
	case t.Status == http.StatusForbidden:
		r.Summary = fmt.Sprintf("proxy failure: %s refuses CONNECT to %s (403 Forbidden)", proxy, t.Target)
		r.Action = "Allow " + t.Target + " in the proxy's rules, or " + bypass
	default:
		r.Summary = fmt.Sprintf("proxy failure: %s answered CONNECT %s with %d %s", proxy, t.Target, t.Status, http.StatusText(t.Status))
		r.Action = "Read the proxy's log for " + t.Target + ", or " + bypass
	}
	return true
}

// noProxyAdvice says what NO_PROXY would need for the kubelet to reach the
// API server directly.
func noProxyAdvice(ev EndpointEvidence) string {
	current := "it is not set"
	if s, ok := ev.Conn.setting("NO_PROXY"); ok {
		current = fmt.Sprintf("now %q, from %s", s.Value, s.Source)
	}
	return fmt.Sprintf("reach the API server directly: add %s to NO_PROXY (%s; keep 169.254.169.254, localhost and the cluster's service CIDR in it), "+
		"in spec.instance.environment or where the kubelet's proxy is set.", ev.Host, current)
}

func handshakeStage(r *Result, ev EndpointEvidence, _ time.Time) bool {
	if ev.HandshakeErr == nil {
		return false
	}
	if ev.Proxy != nil {
		r.Summary = fmt.Sprintf("TLS with %s through proxy %s failed: %v", net.JoinHostPort(ev.Host, ev.Port), ev.Proxy.Redacted(), ev.HandshakeErr)
		r.Action = "The proxy's tunnel does not carry the API server's TLS: check what the proxy does with " + ev.Host + ", or " + noProxyAdvice(ev)
		return true
	}
	r.Summary = fmt.Sprintf("TLS with %s failed: %v", ev.Dialed, ev.HandshakeErr)
	r.Action = "Check that cluster.apiServerEndpoint is the API server's HTTPS address, not another service or a plain-HTTP port."
	return true
}

func caStage(r *Result, ev EndpointEvidence, _ time.Time) bool {
	if ev.CAErr == nil {
		return false
	}
	r.Summary = "the configured cluster CA cannot be used: " + ev.CAErr.Error()
	r.Action = "Put the cluster's CA certificate in cluster.certificateAuthority (aws eks describe-cluster --query cluster.certificateAuthority.data) and run `nodeboot init` again."
	return true
}

func chainStage(r *Result, ev EndpointEvidence, now time.Time) bool {
	for _, ca := range ev.CAs {
		r.Evidence = append(r.Evidence, "configured cluster CA: "+describeCert(ca))
	}
	r.Evidence = append(r.Evidence, chainEvidence(ev.Chain)...)
	if ev.VerifyErr == nil {
		return false
	}
	*r = verifyFailure(*r, ev, now)
	return true
}

// chainEvidence lists the presented chain: the leaf, the next ones and
// the last, a long chain summarised.
func chainEvidence(chain []*x509.Certificate) []string {
	leaf := chain[0]
	out := []string{fmt.Sprintf("API server certificate: %s, issued by %s, SHA-256 %s", leaf.Subject, leaf.Issuer, Fingerprint(leaf))}
	rest := chain[1:]
	if len(rest) > maxChainShown {
		out = append(out, fmt.Sprintf("presented with %d more certificates (a chain of %d; a server sends at most a few)", len(rest), len(chain)))
		rest = append(rest[:maxChainShown-1:maxChainShown-1], rest[len(rest)-1])
	}
	for _, c := range rest {
		out = append(out, "presented with: "+describeCert(c))
	}
	return out
}

func verifyFailure(r Result, ev EndpointEvidence, now time.Time) Result {
	leaf := ev.Chain[0]
	var unknown x509.UnknownAuthorityError
	var invalid x509.CertificateInvalidError
	var host x509.HostnameError
	switch {
	case errors.As(ev.VerifyErr, &unknown) && ev.Proxy != nil:
		return tlsInspection(r, ev)
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

// tlsInspection names a proxy that ends TLS itself: behind it the chain
// comes from the proxy's CA, and the configured cluster CA is right.
func tlsInspection(r Result, ev EndpointEvidence) Result {
	top := ev.Chain[len(ev.Chain)-1]
	r.Summary = fmt.Sprintf("TLS inspection: behind proxy %s the API server's certificate is issued by %s, not by the cluster CA (%s): the proxy ends TLS itself",
		ev.Proxy.Redacted(), top.Issuer, caNames(ev.CAs))
	r.Action = "Keep the cluster CA (it is right, do not replace it) and let the kubelet's TLS reach the API server: exempt " + ev.Host +
		" from inspection at the proxy, add the inspecting CA to cluster.certificateAuthority next to the cluster's, or " + noProxyAdvice(ev)
	return r
}

// answerStage judges the answer to GET /version: a redirect means
// something other than the API server answers.
func answerStage(r *Result, ev EndpointEvidence, _ time.Time) bool {
	if ev.Status < 300 || ev.Status >= 400 {
		return false
	}
	r.Summary = fmt.Sprintf("GET /version answered %d, a redirect to %q (not followed): this is not the API server", ev.Status, ev.Location)
	if strings.HasPrefix(strings.ToLower(ev.Location), "http://") {
		r.Summary += "; it points at plain HTTP, where the kubelet's credential would travel unencrypted"
	}
	r.Action = "Set cluster.apiServerEndpoint to the API server's own URL (aws eks describe-cluster --query cluster.endpoint); a load balancer or portal in between must not redirect."
	return true
}
