//go:build oracle

package oracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"sync"
	"testing"

	"golang.org/x/net/http/httpproxy"

	"github.com/nodeboot/nodeboot/internal/node/doctor/pyproxy"
)

// botocoreDriver decides proxying with the botocore Debian's awscli
// bundles, for a table of environments at once (see the script).
const botocoreDriver = "testdata/botocore_proxies.py"

// awscliBotocore is where Debian's awscli keeps its own botocore.
const awscliBotocore = "/usr/lib/python3/dist-packages/awscli/botocore/utils.py"

var botocoreFound = sync.OnceValue(func() error {
	if _, err := os.Stat(awscliBotocore); err != nil {
		return fmt.Errorf("no awscli botocore (apt-get install awscli; test/e2e/scripts/install-deps.sh): %w", err)
	}
	return nil
})

// proxyURLs are the URLs `aws eks get-token` calls (IMDS over IPv4 and
// IPv6, STS regional and global) and a few that tell the rules apart.
var proxyURLs = []string{
	"http://169.254.169.254/latest/api/token",
	"http://169.254.169.254/latest/meta-data/iam/security-credentials/",
	"http://[fd00:ec2::254]/latest/api/token",
	"https://sts.us-west-2.amazonaws.com",
	"https://sts.amazonaws.com/",
	"https://STS.EU-WEST-1.AMAZONAWS.COM/",
	"https://amazonaws.com/",
	"https://sts.internal.example:8443/",
	"https://vpce-0a1b.sts.us-west-2.vpce.amazonaws.com/",
}

// proxyEnv is one environment, as an ordered list of variables.
type proxyEnv struct {
	name string
	env  [][2]string
}

// withProxies prepends HTTP_PROXY and HTTPS_PROXY to vars.
func withProxies(vars ...string) [][2]string {
	env := [][2]string{{"HTTP_PROXY", "http://proxy.corp:3128"}, {"HTTPS_PROXY", "http://proxy.corp:3129"}}
	for i := 0; i+1 < len(vars); i += 2 {
		env = append(env, [2]string{vars[i], vars[i+1]})
	}
	return env
}

// proxyEnvs are NO_PROXY and proxy variables as operators write them.
var proxyEnvs = []proxyEnv{
	{"no variables", nil},
	{"proxies, no NO_PROXY", withProxies()},
	{"HTTPS_PROXY only (IMDS is http)", [][2]string{{"HTTPS_PROXY", "http://proxy.corp:3129"}}},
	{"http_proxy only, lower case", [][2]string{{"http_proxy", "http://proxy.corp:3128"}}},
	{"IPv4 CIDR", withProxies("NO_PROXY", "169.254.0.0/16")},
	{"IMDS address", withProxies("NO_PROXY", "169.254.169.254")},
	{"IMDS address /32", withProxies("NO_PROXY", "169.254.169.254/32")},
	{"IMDS address with port", withProxies("NO_PROXY", "169.254.169.254:80")},
	{"last octet only", withProxies("NO_PROXY", "254")},
	{"star dot domain", withProxies("NO_PROXY", "*.amazonaws.com")},
	{"leading dot domain", withProxies("NO_PROXY", ".amazonaws.com")},
	{"two leading dots", withProxies("NO_PROXY", "..amazonaws.com")},
	{"bare domain", withProxies("NO_PROXY", "amazonaws.com")},
	{"upper-case host", withProxies("NO_PROXY", "STS.US-WEST-2.AMAZONAWS.COM")},
	{"STS with default port", withProxies("NO_PROXY", "sts.us-west-2.amazonaws.com:443")},
	{"custom endpoint with its port", withProxies("NO_PROXY", "sts.internal.example:8443")},
	{"custom endpoint's domain with its port", withProxies("NO_PROXY", "example:8443")},
	{"star in a list", withProxies("NO_PROXY", "localhost,*")},
	{"star alone", withProxies("NO_PROXY", "*")},
	{"star with spaces", withProxies("NO_PROXY", " * ")},
	{"IPv6 bare", withProxies("NO_PROXY", "fd00:ec2::254")},
	{"IPv6 brackets", withProxies("NO_PROXY", "[fd00:ec2::254]")},
	{"IPv6 CIDR", withProxies("NO_PROXY", "fd00:ec2::/64")},
	{"spaces and tabs", withProxies("NO_PROXY", "localhost, 169.254.169.254 ,\t.amazonaws.com")},
	{"ASCII separator around an entry", withProxies("NO_PROXY", "\x1c169.254.169.254\x1f")},
	{"empty entries", withProxies("NO_PROXY", ",,.,")},
	{"empty NO_PROXY", withProxies("NO_PROXY", "")},
	{"empty proxy variables", [][2]string{{"HTTP_PROXY", ""}, {"HTTPS_PROXY", ""}, {"NO_PROXY", "x"}}},
	{"no_proxy only, lower case", withProxies("no_proxy", "169.254.169.254,.amazonaws.com")},
	{"both NO_PROXY cases", withProxies("NO_PROXY", "169.254.169.254", "no_proxy", ".amazonaws.com")},
	{"empty no_proxy unsets NO_PROXY", withProxies("NO_PROXY", "169.254.169.254", "no_proxy", "")},
	{"both HTTPS_PROXY cases", withProxies("https_proxy", "http://lower.corp:8080")},
	{"empty http_proxy unsets HTTP_PROXY", withProxies("http_proxy", "")},
	{"mixed-case name", [][2]string{{"HTTPS_proxy", "http://mixed.corp:1"}, {"Http_Proxy", "http://mixed.corp:2"}}},
	{"proxy without scheme", [][2]string{{"HTTP_PROXY", "proxy.corp:3128"}, {"HTTPS_PROXY", "//proxy.corp:3129"}}},
	{"CGI: REQUEST_METHOD drops HTTP_PROXY", withProxies("REQUEST_METHOD", "GET")},
	{"CGI: empty REQUEST_METHOD counts", withProxies("REQUEST_METHOD", "")},
	{"CGI: lower-case http_proxy stays", [][2]string{{"REQUEST_METHOD", "GET"}, {"http_proxy", "http://proxy.corp:3128"}}},
}

// TestPyProxyDecidesAsBotocore requires pyproxy.ForURL to choose, for
// every environment and URL, the proxy the real botocore (Debian's
// awscli, `aws eks get-token`) chooses, and logs where Go's rules (the
// kubelet's, golang.org/x/net/http/httpproxy) decide otherwise.
func TestPyProxyDecidesAsBotocore(t *testing.T) {
	if err := botocoreFound(); err != nil {
		if os.Getenv("NODEBOOT_REQUIRE_E2E") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	want := botocoreDecisions(t)
	differ := 0
	for i, c := range proxyEnvs {
		env := make([]string, len(c.env))
		for j, v := range c.env {
			env[j] = v[0] + "=" + v[1]
		}
		for j, u := range proxyURLs {
			got := ""
			if p, ok := pyproxy.ForURL(env, u); ok {
				got = p.Value
			}
			if got != want[i][j] {
				t.Errorf("%s %q, %s: pyproxy %q, botocore %q", c.name, c.env, u, got, want[i][j])
			}
			if g := goDecision(c.env, u); g != want[i][j] {
				differ++
				t.Logf("Go differs: %s, %s: botocore %q, httpproxy %q", c.name, u, want[i][j], g)
			}
		}
	}
	t.Logf("%d environments × %d URLs; Go's httpproxy decides otherwise than botocore in %d", len(proxyEnvs), len(proxyURLs), differ)
}

// botocoreDecisions runs the whole table in one Python process.
func botocoreDecisions(t *testing.T) [][]string {
	t.Helper()
	type pyCase struct {
		Env  [][2]string `json:"env"`
		URLs []string    `json:"urls"`
	}
	cases := make([]pyCase, len(proxyEnvs))
	for i, c := range proxyEnvs {
		cases[i] = pyCase{Env: c.env, URLs: proxyURLs}
		if cases[i].Env == nil {
			cases[i].Env = [][2]string{}
		}
	}
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), cloudInitPython, botocoreDriver)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("botocore driver: %v\n%s", err, stderr.String())
	}
	var raw [][]*string
	if err := json.Unmarshal(stdout.Bytes(), &raw); err != nil || len(raw) != len(cases) {
		t.Fatalf("botocore driver output (%d results for %d cases): %v\n%s", len(raw), len(cases), err, stdout.String())
	}
	out := make([][]string, len(raw))
	for i, r := range raw {
		out[i] = make([]string, len(proxyURLs))
		for j := range out[i] {
			if j < len(r) && r[j] != nil {
				out[i][j] = *r[j]
			}
		}
	}
	return out
}

// goDecision is the kubelet's choice: the upper-case variable first, as
// the doctor's proxyFor and Go's httpproxy.FromEnvironment read them
// (REQUEST_METHOD aside: the kubelet is no CGI script).
func goDecision(env [][2]string, rawURL string) string {
	get := func(names ...string) string {
		for _, n := range names {
			for _, v := range env {
				if v[0] == n && v[1] != "" {
					return v[1]
				}
			}
		}
		return ""
	}
	cfg := httpproxy.Config{HTTPProxy: get("HTTP_PROXY", "http_proxy"), HTTPSProxy: get("HTTPS_PROXY", "https_proxy"), NoProxy: get("NO_PROXY", "no_proxy")}
	u, err := url.Parse(rawURL)
	if err != nil {
		return "error"
	}
	p, err := cfg.ProxyFunc()(u)
	switch {
	case err != nil:
		return "error: " + err.Error()
	case p == nil:
		return ""
	}
	return p.String()
}
