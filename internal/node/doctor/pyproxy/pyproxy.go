// Package pyproxy decides, as the AWS CLI does, whether a request goes
// through a proxy: botocore's get_environ_proxies, which is Python's
// urllib.request.getproxies_environment and proxy_bypass_environment
// (CPython 3.11, Lib/urllib/request.py) on Linux.
//
// It is written by hand because no Go library implements Python's rules;
// Go's golang.org/x/net/http/httpproxy (the kubelet's) reads the same
// variables differently: Python ignores CIDRs and IP ranges, takes `*`
// only as the whole value, matches an entry with a port only against a
// URL that spells that port, reads `*.example.com` as a literal name,
// prefers the lower-case variable over the upper-case one (an empty
// lower-case one unsets it), and drops HTTP_PROXY when REQUEST_METHOD is
// set (CGI). The test/oracle suite checks this package against the real
// botocore bundled with Debian's awscli.
package pyproxy

import (
	"net/url"
	"strings"
	"unicode"
)

// Setting is a value from the environment and the variable it came from.
type Setting struct {
	Name, Value string
}

// Proxies is getproxies_environment: scheme ("http", "https", "no", …) to
// the setting, from env (NAME=value, in the process's order, without
// duplicate names). A lower-case `*_proxy` name is read last and wins; an
// empty one removes what an upper-case one set.
func Proxies(env []string) map[string]Setting {
	proxies := map[string]Setting{}
	cgi := false
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		cgi = cgi || name == "REQUEST_METHOD"
		lower := pyLower(name)
		if value != "" && strings.HasSuffix(lower, "_proxy") {
			proxies[strings.TrimSuffix(lower, "_proxy")] = Setting{name, value}
		}
	}
	if cgi {
		// CVE-2016-1000110: a CGI script's HTTP_PROXY may come from a
		// client's Proxy: header.
		delete(proxies, "http")
	}
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if !strings.HasSuffix(name, "_proxy") {
			continue
		}
		scheme := pyLower(strings.TrimSuffix(name, "_proxy"))
		if value != "" {
			proxies[scheme] = Setting{name, value}
		} else {
			delete(proxies, scheme)
		}
	}
	return proxies
}

// Bypass is proxy_bypass_environment: whether host (a URL's netloc, port
// included when the URL spells one) is exempt by the "no" setting.
func Bypass(host string, proxies map[string]Setting) bool {
	no, ok := proxies["no"]
	if !ok {
		return false
	}
	return BypassEntry(host, no.Value) != "" || no.Value == "*"
}

// BypassEntry returns the entry of noProxy (the no_proxy value) that
// exempts host, or "" when none does ("*" alone is handled by Bypass).
func BypassEntry(host, noProxy string) string {
	host = pyLower(host)
	hostOnly := splitPort(host)
	for _, entry := range strings.Split(noProxy, ",") {
		name := strings.TrimFunc(entry, pyIsSpace)
		if name == "" {
			continue
		}
		name = pyLower(strings.TrimLeft(name, "."))
		if hostOnly == name || host == name ||
			strings.HasSuffix(hostOnly, "."+name) || strings.HasSuffix(host, "."+name) {
			return entry
		}
	}
	return ""
}

// ForURL is what botocore's ProxyConfiguration.proxy_url_for gives for
// rawURL after get_environ_proxies: the proxy URL (an address without a
// scheme gets http://) and the variable that set it, or ok false for a
// direct connection.
func ForURL(env []string, rawURL string) (proxy Setting, ok bool) {
	scheme, netloc := splitURL(rawURL)
	proxies := Proxies(env)
	if Bypass(netloc, proxies) {
		return Setting{}, false
	}
	p, ok := proxies[scheme]
	if !ok {
		return Setting{}, false
	}
	return Setting{Name: p.Name, Value: fixProxyURL(p.Value)}, true
}

// fixProxyURL is botocore's ProxyConfiguration._fix_proxy_url.
func fixProxyURL(p string) string {
	switch {
	case strings.HasPrefix(p, "http:"), strings.HasPrefix(p, "https:"):
		return p
	case strings.HasPrefix(p, "//"):
		return "http:" + p
	default:
		return "http://" + p
	}
}

// splitURL returns urlparse's scheme (lower case) and netloc (userinfo
// and port as written).
func splitURL(rawURL string) (scheme, netloc string) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", ""
	}
	netloc = u.Host
	if u.User != nil {
		netloc = u.User.String() + "@" + netloc
	}
	return strings.ToLower(u.Scheme), netloc
}

// splitPort is urllib.parse._splitport's host: the regular expression
// `(.*):([0-9]*)` matched against the whole string, so only a last colon
// followed by ASCII digits (or nothing) ends the host.
func splitPort(host string) string {
	i := strings.LastIndexByte(host, ':')
	if i < 0 {
		return host
	}
	for _, c := range host[i+1:] {
		if c < '0' || c > '9' {
			return host
		}
	}
	return host[:i]
}

// pyIsSpace is str.isspace: Unicode's white space plus the ASCII
// separators U+001C to U+001F, which Python counts and Go does not.
func pyIsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// pyLower is str.lower for the names and hosts met here. Go's ToLower
// agrees with Python's on everything but a few special casings (U+0130
// lowers to two code points in Python), irrelevant to host names.
func pyLower(s string) string {
	return strings.ToLower(s)
}
