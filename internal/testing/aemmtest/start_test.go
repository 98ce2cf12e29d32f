package aemmtest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestStartServesIMDSv2Only(t *testing.T) {
	endpoint := Start(t, Config{InstanceID: "i-0feedface0000000a"})
	if !strings.HasPrefix(endpoint, "http://127.0.0.1:") {
		t.Fatalf("endpoint = %q, want loopback", endpoint)
	}
	client := &http.Client{Transport: &http.Transport{Proxy: nil}}
	get := func(token string) (int, string) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, endpoint+"/latest/meta-data/instance-id", nil)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("X-aws-ec2-metadata-token", token)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, _ := get(""); code != http.StatusUnauthorized {
		t.Errorf("GET without token = %d, want 401 (IMDSv2 only)", code)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPut, endpoint+"/latest/api/token", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-aws-ec2-metadata-token-ttl-seconds", "60")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	token, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if code, body := get(string(token)); code != http.StatusOK || body != "i-0feedface0000000a" {
		t.Errorf("GET with token = %d %q, want 200 i-0feedface0000000a", code, body)
	}
}
