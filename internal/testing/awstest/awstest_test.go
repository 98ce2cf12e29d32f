package awstest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func do(t *testing.T, req *http.Request) (int, http.Header, string) {
	t.Helper()
	resp, err := (&http.Client{Transport: &http.Transport{Proxy: nil}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(body)
}

func ec2Request(t *testing.T, s *EC2, form url.Values, signed bool) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if signed {
		req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-west-2/ec2/aws4_request")
	}
	return req
}

func TestEC2Wire(t *testing.T) {
	s := NewEC2(t)
	s.AddInstance(Instance{ID: "i-1", InstanceType: "m5.large", PrivateDNSName: "ip-1.ec2.internal"})
	describe := url.Values{"Action": {"DescribeInstances"}, "Version": {"2016-11-15"}, "InstanceId.1": {"i-1"}}
	tests := []struct {
		name       string
		form       url.Values
		signed     bool
		fault      *Fault
		wantStatus int
		wantBody   []string
	}{
		{
			name: "describe instances", form: describe, signed: true, wantStatus: 200,
			wantBody: []string{`<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">`,
				"<reservationSet><item><reservationId>r-1</reservationId><instancesSet><item><instanceId>i-1</instanceId>",
				"<privateDnsName>ip-1.ec2.internal</privateDnsName>"},
		},
		{
			name: "unsigned request", form: describe, signed: false, wantStatus: 401,
			wantBody: []string{"<Response><Errors><Error><Code>AuthFailure</Code>"},
		},
		{
			name: "unknown instance", signed: true, wantStatus: 400,
			form:     url.Values{"Action": {"DescribeInstances"}, "Version": {"2016-11-15"}, "InstanceId.1": {"i-404"}},
			wantBody: []string{"<Code>InvalidInstanceID.NotFound</Code>", "i-404"},
		},
		{
			name: "injected throttling", form: describe, signed: true, fault: &EC2Throttling, wantStatus: 503,
			wantBody: []string{"<Code>RequestLimitExceeded</Code><Message>Request limit exceeded.</Message>"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.fault != nil {
				s.FailNext(ActionDescribeInstances, *tc.fault)
			}
			status, _, body := do(t, ec2Request(t, s, tc.form, tc.signed))
			if status != tc.wantStatus {
				t.Errorf("status = %d, want %d; body %s", status, tc.wantStatus, body)
			}
			for _, w := range tc.wantBody {
				if !strings.Contains(body, w) {
					t.Errorf("body %s\nlacks %s", body, w)
				}
			}
		})
	}
	if n := s.Calls(ActionDescribeInstances); n != 4 {
		t.Errorf("DescribeInstances calls = %d, want 4", n)
	}
}

func TestEKSWire(t *testing.T) {
	s := NewEKS(t)
	s.AddCluster(Cluster{Name: "prod", Endpoint: "https://e", CA: []byte("ca"), ServiceIPv4CIDR: "10.100.0.0/16"})
	get := func(path string) (int, http.Header, string) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=x")
		return do(t, req)
	}
	status, _, body := get("/clusters/prod")
	if status != 200 || !strings.Contains(body, `"certificateAuthority":{"data":"Y2E="}`) || !strings.Contains(body, `"serviceIpv4Cidr":"10.100.0.0/16"`) {
		t.Errorf("GET /clusters/prod = %d %s", status, body)
	}
	status, hdr, body := get("/clusters/nope")
	if status != 404 || !strings.HasPrefix(hdr.Get("x-amzn-ErrorType"), "ResourceNotFoundException") || !strings.Contains(body, "No cluster found") {
		t.Errorf("GET /clusters/nope = %d %v %s", status, hdr, body)
	}
	s.FailNext(ActionDescribeCluster, EKSThrottling)
	if status, hdr, _ := get("/clusters/prod"); status != 429 || !strings.HasPrefix(hdr.Get("x-amzn-ErrorType"), "ThrottlingException") {
		t.Errorf("throttled = %d %v", status, hdr)
	}
	if n := s.Calls(ActionDescribeCluster); n != 3 {
		t.Errorf("calls = %d, want 3", n)
	}
}

func TestIMDSTokenAndDelay(t *testing.T) {
	s := NewIMDS(t)
	s.Set("meta-data/mac", "m")
	s.SetDelay("meta-data/mac", 50*time.Millisecond)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL+"/latest/meta-data/mac", nil)
	if status, _, _ := do(t, req); status != 401 {
		t.Errorf("without token = %d, want 401", status)
	}
	tokReq, _ := http.NewRequestWithContext(t.Context(), http.MethodPut, s.URL+"/latest/api/token", nil)
	tokReq.Header.Set("X-aws-ec2-metadata-token-ttl-seconds", "21600")
	status, hdr, token := do(t, tokReq)
	if status != 200 || hdr.Get("X-aws-ec2-metadata-token-ttl-seconds") != "21600" {
		t.Fatalf("token = %d %v", status, hdr)
	}
	req, _ = http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL+"/latest/meta-data/mac", nil)
	req.Header.Set("X-aws-ec2-metadata-token", token)
	start := time.Now()
	if status, _, body := do(t, req); status != 200 || body != "m" {
		t.Errorf("with token = %d %q", status, body)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("answer took %s, want the 50ms delay", d)
	}
	if n := s.Calls("meta-data/mac"); n != 2 {
		t.Errorf("calls = %d, want 2", n)
	}
}

func TestFaultModes(t *testing.T) {
	s := NewIMDS(t)
	s.RequireToken = false
	s.Set("meta-data/mac", "abcdef")
	get := func(ctx context.Context, path string) (*http.Response, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/latest/"+path, nil)
		return (&http.Client{Transport: &http.Transport{Proxy: nil}}).Do(req)
	}

	t.Run("FailAlways answers every call with the fault", func(t *testing.T) {
		s.FailAlways(PathToken, Fault{Status: http.StatusServiceUnavailable, Message: "down"})
		for range 3 {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPut, s.URL+"/latest/api/token", nil)
			req.Header.Set("X-aws-ec2-metadata-token-ttl-seconds", "60")
			if status, _, _ := do(t, req); status != http.StatusServiceUnavailable {
				t.Fatalf("status = %d, want 503 on every call", status)
			}
		}
	})

	t.Run("Trickle sends headers, then the body byte by byte", func(t *testing.T) {
		s.Trickle("meta-data/mac", time.Hour)
		defer s.Trickle("meta-data/mac", 0)
		ctx, cancel := context.WithCancel(t.Context())
		resp, err := get(ctx, "meta-data/mac")
		if err != nil {
			t.Fatalf("headers did not arrive: %v", err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 || resp.ContentLength != 6 {
			t.Fatalf("status %d, length %d; want 200 announcing 6 bytes", resp.StatusCode, resp.ContentLength)
		}
		first := make([]byte, 1)
		if _, err := io.ReadFull(resp.Body, first); err != nil || first[0] != 'a' {
			t.Fatalf("first byte %q, %v", first, err)
		}
		cancel() // the rest would take hours: only a deadline ends the read
		if rest, err := io.ReadAll(resp.Body); err == nil {
			t.Fatalf("read the rest %q without error", rest)
		}
	})

	t.Run("Hang never answers", func(t *testing.T) {
		s.Hang("meta-data/mac")
		defer s.SetDelay("meta-data/mac", 0)
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		resp, err := get(ctx, "meta-data/mac")
		if err == nil {
			resp.Body.Close()
			t.Fatalf("got an answer (%d) from a hanging server", resp.StatusCode)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error = %v, want the client's deadline", err)
		}
	})
}
