package awsconfig

import (
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"golang.org/x/net/http/httpproxy"
)

// MetadataEndpointEnv names the variable the SDK reads to override the
// instance metadata service endpoint.
const MetadataEndpointEnv = "AWS_EC2_METADATA_SERVICE_ENDPOINT"

// ProxyFunc is the signature of http.Transport.Proxy.
type ProxyFunc = func(*http.Request) (*url.URL, error)

// Proxy returns a proxy function for http.Transport that reads HTTP_PROXY,
// HTTPS_PROXY and NO_PROXY (either case) again on every request, unlike
// http.ProxyFromEnvironment, which caches them on first use. That matters
// because the agent exports the user's proxy environment after it started.
//
// Requests to the instance metadata service are never proxied: the link-local
// addresses 169.254.169.254 and fd00:ec2::254, localhost, 127.0.0.0/8, ::1,
// the host named by AWS_EC2_METADATA_SERVICE_ENDPOINT and every host in
// bypass (host names or IP literals, ports ignored).
func Proxy(bypass ...string) ProxyFunc {
	extra := make([]string, 0, len(bypass))
	for _, h := range bypass {
		if h = normalizeHost(h); h != "" {
			extra = append(extra, h)
		}
	}
	return func(req *http.Request) (*url.URL, error) {
		if req.URL == nil || neverProxied(req.URL.Hostname(), extra) {
			return nil, nil
		}
		return httpproxy.FromEnvironment().ProxyFunc()(req.URL)
	}
}

// IsMetadataHost reports whether host (without port) is one of the fixed
// addresses the instance metadata service answers on, or a loopback address.
func IsMetadataHost(host string) bool {
	host = normalizeHost(host)
	switch host {
	case "169.254.169.254", "fd00:ec2::254", "localhost":
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func neverProxied(host string, extra []string) bool {
	host = normalizeHost(host)
	if IsMetadataHost(host) {
		return true
	}
	if env := metadataEndpointHost(); env != "" && env == host {
		return true
	}
	for _, h := range extra {
		if h == host {
			return true
		}
	}
	return false
}

// metadataEndpointHost is the host of AWS_EC2_METADATA_SERVICE_ENDPOINT, read
// now (not cached) so that a later change of the variable is honoured.
func metadataEndpointHost() string {
	v := os.Getenv(MetadataEndpointEnv)
	if v == "" {
		return ""
	}
	return HostOf(v)
}

// HostOf returns the lower-cased host of an endpoint written as a URL
// ("http://[fd00:ec2::254]:80") or as a bare host ("169.254.169.254").
func HostOf(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil && u.Host != "" {
		return normalizeHost(u.Hostname())
	}
	return normalizeHost(endpoint)
}

func normalizeHost(h string) string {
	h = strings.TrimSpace(strings.ToLower(h))
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	return strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
}
