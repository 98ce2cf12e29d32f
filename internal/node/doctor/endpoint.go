package doctor

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/net/http/httpproxy"

	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
)

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
	Proxy kubeapi.ProxyFunc
	// ProxyVars are the settings that choose it (NAME=value), each with
	// where it was set.
	ProxyVars []ProxySetting
	// StaleProxyVars are the proxy variables the running kubelet has with
	// another value than its unit now gives it (a drop-in or environment
	// file changed without a restart): the next start uses the unit's.
	StaleProxyVars []string
	// UnitNotes are what systemd ignores or fails on in kubelet.service's
	// environment settings (ServiceEnv.Ignored and Problems).
	UnitNotes []string
	Err       error
}

// ProxySetting is one proxy variable of the kubelet's and where it is set.
type ProxySetting struct {
	Name, Value, Source string
}

// String is NAME=value, a password in the value masked.
func (p ProxySetting) String() string {
	v := p.Value
	if u, err := url.Parse(v); err == nil && u.User != nil {
		v = u.Redacted()
	}
	return p.Name + "=" + v
}

// setting returns the named proxy setting ("HTTPS_PROXY", "NO_PROXY").
func (c Connection) setting(name string) (ProxySetting, bool) {
	for _, s := range c.ProxyVars {
		if s.Name == name {
			return s, true
		}
	}
	return ProxySetting{}, false
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
	c.Proxy, c.ProxyVars = proxyFor(c.Cluster, k.Env(), k.EnvSource)
	c.UnitNotes = append(slices.Clip(k.UnitEnv.Problems), k.UnitEnv.Ignored...)
	if k.ProcessEnv != nil {
		c.StaleProxyVars = proxyDiffers(k.UnitEnv, k.ProcessEnv)
	}
	return c
}

// proxyFor returns the proxy choice of the kubelet's client: the
// kubeconfig's proxy-url, else its environment (as
// http.ProxyFromEnvironment), and the settings it came from.
func proxyFor(c kubeapi.Cluster, env map[string]string, source func(string) string) (kubeapi.ProxyFunc, []ProxySetting) {
	if c.ProxyURL != "" {
		u, err := url.Parse(c.ProxyURL)
		return func(*http.Request) (*url.URL, error) { return u, err }, []ProxySetting{{Name: "proxy-url", Value: c.ProxyURL, Source: "the kubeconfig"}}
	}
	var vars []ProxySetting
	get := func(names ...string) string {
		for _, n := range names {
			if v := env[n]; v != "" {
				vars = append(vars, ProxySetting{Name: strings.ToUpper(n), Value: v, Source: source(n)})
				return v
			}
		}
		return ""
	}
	cfg := httpproxy.Config{HTTPSProxy: get("HTTPS_PROXY", "https_proxy"), HTTPProxy: get("HTTP_PROXY", "http_proxy"), NoProxy: get("NO_PROXY", "no_proxy")}
	fn := cfg.ProxyFunc()
	return func(r *http.Request) (*url.URL, error) { return fn(r.URL) }, vars
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
