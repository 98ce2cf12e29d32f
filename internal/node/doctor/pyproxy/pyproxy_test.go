package pyproxy

import (
	"strings"
	"testing"
)

// The oracle test (test/oracle, TestPyProxyDecidesAsBotocore) checks these
// rules against the real botocore; these cases name the rules that differ
// from Go's, so a change to one fails here first.
func TestForURL(t *testing.T) {
	const imds, sts = "http://169.254.169.254/latest/api/token", "https://sts.us-west-2.amazonaws.com"
	proxies := []string{"HTTP_PROXY=http://p:1", "HTTPS_PROXY=http://p:2"}
	tests := []struct {
		name string
		env  []string
		url  string
		want string // "" is direct
	}{
		{"no NO_PROXY: IMDS through HTTP_PROXY", nil, imds, "http://p:1"},
		{"CIDR ignored", []string{"NO_PROXY=169.254.0.0/16"}, imds, "http://p:1"},
		{"address exempts", []string{"NO_PROXY=169.254.169.254"}, imds, ""},
		{"a suffix of an address exempts", []string{"NO_PROXY=254"}, imds, ""},
		{"star in a list is a name", []string{"NO_PROXY=localhost,*"}, sts, "http://p:2"},
		{"star alone exempts all", []string{"NO_PROXY=*"}, sts, ""},
		{"star dot is a literal name", []string{"NO_PROXY=*.amazonaws.com"}, sts, "http://p:2"},
		{"leading dots dropped", []string{"NO_PROXY=..amazonaws.com"}, "https://amazonaws.com/", ""},
		{"port must be spelled in the URL", []string{"NO_PROXY=sts.us-west-2.amazonaws.com:443"}, sts, "http://p:2"},
		{"port spelled in both", []string{"NO_PROXY=example:8443"}, "https://sts.example:8443/", ""},
		{"ASCII separators are space", []string{"NO_PROXY=\x1c169.254.169.254\x1f"}, imds, ""},
		{"lower-case no_proxy wins", []string{"NO_PROXY=169.254.169.254", "no_proxy=.amazonaws.com"}, imds, "http://p:1"},
		{"empty no_proxy unsets NO_PROXY", []string{"NO_PROXY=169.254.169.254", "no_proxy="}, imds, "http://p:1"},
		{"lower-case https_proxy wins", []string{"https_proxy=http://low:3"}, sts, "http://low:3"},
		{"empty http_proxy unsets HTTP_PROXY", []string{"http_proxy="}, imds, ""},
		{"CGI drops HTTP_PROXY", []string{"REQUEST_METHOD="}, imds, ""},
		{"scheme added", []string{"HTTPS_PROXY=p:9"}, sts, "http://p:9"},
		{"bracketed IPv6", []string{"NO_PROXY=[fd00:ec2::254]"}, "http://[fd00:ec2::254]/latest/api/token", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := append(append([]string{}, proxies...), tt.env...)
			got, ok := ForURL(env, tt.url)
			if ok != (tt.want != "") || got.Value != tt.want {
				t.Errorf("ForURL(%q, %s) = %q, %v; want %q", env, tt.url, got.Value, ok, tt.want)
			}
		})
	}
}

func TestProxiesNamesTheVariable(t *testing.T) {
	p := Proxies([]string{"HTTPS_PROXY=http://a:1", "https_proxy=http://b:2", "NO_PROXY=x"})
	if p["https"] != (Setting{"https_proxy", "http://b:2"}) || p["no"] != (Setting{"NO_PROXY", "x"}) {
		t.Errorf("Proxies = %v", p)
	}
}

// FuzzBypass: no panic, and a host always matches an entry that is
// itself (leading dots, surrounding spaces; case is in TestForURL: Unicode
// upper-casing does not round-trip).
func FuzzBypass(f *testing.F) {
	f.Add("169.254.169.254", "169.254.0.0/16, .example.com")
	f.Add("[fd00:ec2::254]:80", "*,:80")
	f.Fuzz(func(t *testing.T, host, noProxy string) {
		Bypass(host, map[string]Setting{"no": {"NO_PROXY", noProxy}})
		if strings.ContainsAny(host, ",") || strings.TrimFunc(host, pyIsSpace) != host || strings.HasPrefix(host, ".") || host == "" {
			return
		}
		if !Bypass(host, map[string]Setting{"no": {"NO_PROXY", noProxy + ", ." + host + " "}}) {
			t.Errorf("%q not exempt by its own entry", host)
		}
	})
}
