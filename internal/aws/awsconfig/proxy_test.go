package awsconfig

import (
	"net/http"
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

func TestProxyNeverProxiesMetadataAndRereadsEnvironment(t *testing.T) {
	awstest.IsolateEnv(t)
	t.Setenv("HTTP_PROXY", "http://proxy.example:3128")
	t.Setenv("HTTPS_PROXY", "http://secure-proxy.example:3129")
	t.Setenv(MetadataEndpointEnv, "http://imds.internal.example:1338")
	proxy := Proxy("custom-imds.example:80", "[fd00:1::1]")

	tests := []struct {
		name string
		url  string
		want string // "" = direct
	}{
		{name: "ec2 api over https uses HTTPS_PROXY", url: "https://ec2.us-west-2.amazonaws.com/", want: "http://secure-proxy.example:3129"},
		{name: "plain http uses HTTP_PROXY", url: "http://eks.example/", want: "http://proxy.example:3128"},
		{name: "imds ipv4 link-local", url: "http://169.254.169.254/latest/meta-data/mac", want: ""},
		{name: "imds ipv6", url: "http://[fd00:ec2::254]/latest/api/token", want: ""},
		{name: "imds ipv6 with port", url: "http://[FD00:EC2::254]:80/latest/user-data", want: ""},
		{name: "localhost", url: "http://localhost:1338/latest/", want: ""},
		{name: "loopback 127.0.0.1", url: "http://127.0.0.1:1338/", want: ""},
		{name: "loopback 127.1.2.3", url: "http://127.1.2.3/", want: ""},
		{name: "ipv6 loopback", url: "http://[::1]:8080/", want: ""},
		{name: "endpoint from AWS_EC2_METADATA_SERVICE_ENDPOINT", url: "http://imds.internal.example:1338/latest/", want: ""},
		{name: "extra bypass host name", url: "http://custom-imds.example/latest/", want: ""},
		{name: "extra bypass ipv6 literal", url: "http://[fd00:1::1]/", want: ""},
		{name: "link-local neighbour is proxied", url: "http://169.254.169.253/", want: "http://proxy.example:3128"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, tc.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := proxy(req)
			if err != nil {
				t.Fatalf("proxy: %v", err)
			}
			gotS := ""
			if got != nil {
				gotS = got.String()
			}
			if gotS != tc.want {
				t.Errorf("proxy(%s) = %q, want %q", tc.url, gotS, tc.want)
			}
		})
	}
}

func TestProxyReadsEnvironmentOnEveryRequest(t *testing.T) {
	awstest.IsolateEnv(t)
	proxy := Proxy()
	req, err := http.NewRequest(http.MethodPost, "https://ec2.us-west-2.amazonaws.com/", nil)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		env  map[string]string
		want string
	}{
		{name: "no proxy configured", env: nil, want: ""},
		{name: "HTTPS_PROXY set later", env: map[string]string{"HTTPS_PROXY": "http://p1.example:1"}, want: "http://p1.example:1"},
		{name: "HTTPS_PROXY changed", env: map[string]string{"HTTPS_PROXY": "http://p2.example:2"}, want: "http://p2.example:2"},
		{name: "NO_PROXY covers the host", env: map[string]string{"NO_PROXY": ".amazonaws.com"}, want: ""},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			for k, v := range st.env {
				t.Setenv(k, v)
			}
			got, err := proxy(req)
			if err != nil {
				t.Fatal(err)
			}
			gotS := ""
			if got != nil {
				gotS = got.String()
			}
			if gotS != st.want {
				t.Errorf("proxy = %q, want %q", gotS, st.want)
			}
		})
	}
}

func TestHostOf(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{name: "url with port", in: "http://127.0.0.1:1338", want: "127.0.0.1"},
		{name: "ipv6 url", in: "http://[fd00:ec2::254]", want: "fd00:ec2::254"},
		{name: "bare host", in: "IMDS.Example", want: "imds.example"},
		{name: "bare host with port", in: "imds.example:80", want: "imds.example"},
		{name: "bracketed literal", in: "[::1]", want: "::1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := HostOf(tc.in); got != tc.want {
				t.Errorf("HostOf(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
