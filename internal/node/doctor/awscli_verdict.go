package doctor

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"golang.org/x/net/http/httpproxy"
)

// awsCLIVerdict adds to r how `aws eks get-token` routes its requests
// where that breaks the credential or differs from the kubelet: the
// metadata service through a proxy fails the check when the plugin gave
// no credential, and warns when it did (the proxy reached a metadata
// service: this instance's only if the proxy runs here); other
// differences from the kubelet's Go rules warn.
func awsCLIVerdict(r Result, calls []CLICall) Result {
	var imds, differ []CLICall
	for _, c := range calls {
		r.Evidence = append(r.Evidence, c.evidence())
		switch {
		case c.IMDS && c.CLIProxy != "":
			imds = append(imds, c)
		case c.CLIProxy != c.GoProxy:
			differ = append(differ, c)
		}
	}
	switch {
	case len(imds) > 0:
		c := imds[0]
		cause := fmt.Sprintf("`aws eks get-token` asks the metadata service for %s through the proxy %s (%s), which cannot reach this instance's metadata service (link-local; IMDSv2's hop limit drops the answer)%s", c.What, maskProxy(c.CLIProxy), c.CLIProxyVar, c.reason())
		r = escalate(r, Fail, cause, c.fix())
	case len(differ) > 0:
		c := differ[0]
		r = escalate(r, Warn, fmt.Sprintf("`aws eks get-token` routes %s otherwise than the kubelet%s", c.URL, c.reason()), c.fix())
	}
	return r
}

// escalate names cause in r: a failed check gets it as its likely cause;
// a passing one becomes a warning (not a failure: the plugin's run gave a
// credential all the same).
func escalate(r Result, worst Verdict, cause, fix string) Result {
	if r.Verdict == Fail {
		r.Summary += "; likely cause: " + cause
		r.Action = fix
		return r
	}
	if worst == Fail {
		cause += " (the credential came anyway: the proxy reached a metadata service, this instance's only if the proxy runs on it)"
	}
	r.Verdict, r.Summary, r.Action = Warn, r.Summary+"; "+cause, fix
	return r
}

// evidence is one line: the request, the CLI's route and the kubelet's.
func (c CLICall) evidence() string {
	cli, goSide := "direct", "direct"
	if c.CLIProxy != "" {
		cli = "through " + maskProxy(c.CLIProxy) + " (" + c.CLIProxyVar + ")"
	}
	if c.GoProxy != "" {
		goSide = "through " + maskProxy(c.GoProxy)
	}
	return fmt.Sprintf("`aws eks get-token` (Python's proxy rules) calls %s for %s: %s; the kubelet's Go rules would go %s", c.URL, c.What, cli, goSide)
}

// reason says why the two sides differ, from the NO_PROXY entries.
func (c CLICall) reason() string {
	if c.CLINoProxy.Name == "" && c.GoNoProxy != "" {
		return fmt.Sprintf(": the CLI reads no NO_PROXY at all (an empty no_proxy unsets it under Python's rules), the kubelet NO_PROXY=%q", c.GoNoProxy)
	}
	if c.CLINoProxy.Value != c.GoNoProxy {
		return fmt.Sprintf(": the CLI reads %s=%q (Python prefers the lower-case variable; an empty one unsets NO_PROXY), the kubelet NO_PROXY=%q", c.CLINoProxy.Name, c.CLINoProxy.Value, c.GoNoProxy)
	}
	if c.CLIProxy != "" && c.GoProxy != "" && c.CLIProxy != c.GoProxy {
		return fmt.Sprintf(": the CLI uses %s (Python prefers the lower-case variable), the kubelet %s", c.CLIProxyVar, maskProxy(c.GoProxy))
	}
	if c.CLIProxy == "" || c.GoProxy != "" {
		return ""
	}
	entry := goExemptingEntry(c.GoNoProxy, c.URL)
	name := strings.TrimSpace(entry)
	switch {
	case entry == "":
		return ""
	case strings.Contains(name, "/"):
		return fmt.Sprintf(": NO_PROXY's %s exempts it for the kubelet, but the CLI's Python rules ignore CIDRs", name)
	case name == "*":
		return ": NO_PROXY's `*` exempts everything for the kubelet, but for Python only as the whole value, not in a list"
	case strings.HasPrefix(name, "*."):
		return fmt.Sprintf(": NO_PROXY's %s is a wildcard for the kubelet, but Python reads it literally (write %s)", name, strings.TrimPrefix(name, "*"))
	case strings.Contains(name, ":"):
		return fmt.Sprintf(": NO_PROXY's %s exempts it for the kubelet, but Python matches an entry with a port (or an unbracketed IPv6 address) only when the URL spells it so", name)
	}
	return fmt.Sprintf(": NO_PROXY's %s exempts it for the kubelet, not under Python's rules", name)
}

// fix names the NO_PROXY entries both rules honour for the URL's host.
func (c CLICall) fix() string {
	u, err := url.Parse(c.URL)
	if err != nil {
		return "Write NO_PROXY so that the AWS CLI (Python's rules) and the kubelet (Go's) read it alike."
	}
	entries := u.Hostname()
	if ip := net.ParseIP(u.Hostname()); ip != nil && ip.To4() == nil {
		entries += " and [" + u.Hostname() + "]" // Go matches the bare IPv6 address, Python the bracketed one
	}
	fix := fmt.Sprintf("Add %s to NO_PROXY in the kubelet's environment (and to no_proxy if set, which the CLI reads first): the CLI's Python rules match only host names and .domain suffixes, not CIDRs, `*.` wildcards or `*` in a list", entries)
	if c.CLIProxyVar != "" && c.GoProxy != "" && c.CLIProxy != c.GoProxy {
		fix += "; give " + c.CLIProxyVar + " and its upper-case twin the same value"
	}
	return fix + "."
}

// goExemptingEntry is the NO_PROXY entry that exempts rawURL under Go's
// rules, or "".
func goExemptingEntry(noProxy, rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	for _, entry := range strings.Split(noProxy, ",") {
		cfg := httpproxy.Config{HTTPProxy: "http://probe", HTTPSProxy: "http://probe", NoProxy: entry}
		if p, err := cfg.ProxyFunc()(u); err == nil && p == nil {
			return entry
		}
	}
	return ""
}

// maskProxy hides a password in a proxy URL.
func maskProxy(v string) string {
	return ProxySetting{Value: v}.String()[1:]
}
