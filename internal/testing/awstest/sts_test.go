package awstest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

const testSTSHost = "sts.us-west-2.amazonaws.com"

// presignToken presigns GetCallerIdentity with the x-k8s-aws-id header the
// way `aws eks get-token` does, and returns the URL.
func presignToken(t *testing.T, p Principal, cluster, region string, at time.Time) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "https://"+testSTSHost+"/?Action=GetCallerIdentity&Version=2011-06-15&X-Amz-Expires=60", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-k8s-aws-id", cluster)
	creds := aws.Credentials{AccessKeyID: p.AccessKeyID, SecretAccessKey: p.SecretAccessKey, SessionToken: p.SessionToken}
	signed, _, err := v4.NewSigner().PresignHTTP(context.Background(), creds, req, emptySHA256, "sts", region, at)
	if err != nil {
		t.Fatal(err)
	}
	return signed
}

// verifyClient is what the EKS authenticator does with a token: GET the
// presigned URL over HTTPS through the proxy, sending the cluster header
// and asking for JSON.
func verifyClient(t *testing.T, h *Hosts) *http.Client {
	t.Helper()
	pem, err := os.ReadFile(h.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	proxy, _ := url.Parse(h.URL)
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy), TLSClientConfig: &tls.Config{RootCAs: roots}}}
}

func TestSTSPresignedGetCallerIdentity(t *testing.T) {
	s := NewSTS(t, "us-west-2")
	role := AssumedRole("111122223333", "nodes", "i-0123456789abcdef0")
	s.AddPrincipal(role)
	hosts := NewHosts(t, map[string]http.Handler{testSTSHost: s.Handler()})
	client := verifyClient(t, hosts)
	now := time.Now().UTC()
	wrongSecret := role
	wrongSecret.SecretAccessKey = "not-the-secret"
	noToken := role
	noToken.SessionToken = ""
	tests := []struct {
		name       string
		url        string
		header     string // the x-k8s-aws-id the verifier sends
		wantStatus int
		want       string
	}{
		{name: "valid token", url: presignToken(t, role, "prod", "us-west-2", now), header: "prod", wantStatus: 200,
			want: `"Arn":"arn:aws:sts::111122223333:assumed-role/nodes/i-0123456789abcdef0"`},
		{name: "token for another cluster", url: presignToken(t, role, "staging", "us-west-2", now), header: "prod", wantStatus: 403, want: "SignatureDoesNotMatch"},
		{name: "wrong secret", url: presignToken(t, wrongSecret, "prod", "us-west-2", now), header: "prod", wantStatus: 403, want: "SignatureDoesNotMatch"},
		{name: "session token missing", url: presignToken(t, noToken, "prod", "us-west-2", now), header: "prod", wantStatus: 403, want: "InvalidClientTokenId"},
		{name: "unknown key", url: presignToken(t, AssumedRole("111122223333", "x", "y"), "prod", "us-west-2", now), header: "prod", wantStatus: 403, want: "InvalidClientTokenId"},
		{name: "scoped to another region", url: presignToken(t, role, "prod", "eu-west-1", now), header: "prod", wantStatus: 403, want: "Credential should be scoped"},
		{name: "older than 15 minutes", url: presignToken(t, role, "prod", "us-west-2", now.Add(-16*time.Minute)), header: "prod", wantStatus: 403, want: "Request has expired"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, tc.url, nil)
			req.Header.Set("x-k8s-aws-id", tc.header)
			req.Header.Set("accept", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus || !strings.Contains(string(body), tc.want) {
				t.Errorf("HTTP %d %s, want %d with %q", resp.StatusCode, body, tc.wantStatus, tc.want)
			}
		})
	}
	if got := s.CallsBy(role.AccessKeyID); got != 1 {
		t.Errorf("%d answered calls signed by the role, want 1", got)
	}
	if got := s.Calls(ActionGetCallerIdentity); got != len(tests) {
		t.Errorf("%d GetCallerIdentity calls counted, want %d", got, len(tests))
	}
}

func TestSTSJSONShape(t *testing.T) {
	s := NewSTS(t, "us-west-2")
	role := AssumedRole("111122223333", "nodes", "i-0abc")
	s.AddPrincipal(role)
	hosts := NewHosts(t, map[string]http.Handler{testSTSHost: s.Handler()})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, presignToken(t, role, "c", "us-west-2", time.Now()), nil)
	req.Header.Set("x-k8s-aws-id", "c")
	req.Header.Set("accept", "application/json")
	resp, err := verifyClient(t, hosts).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// The shape the authenticator's getCallerIdentityWrapper decodes.
	var got struct {
		GetCallerIdentityResponse struct {
			GetCallerIdentityResult struct{ Account, Arn, UserId string }
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	r := got.GetCallerIdentityResponse.GetCallerIdentityResult
	if r.Account != "111122223333" || r.Arn != role.ARN || r.UserId != role.UserID || !strings.HasSuffix(r.UserId, ":i-0abc") {
		t.Errorf("result %+v, want %+v", r, role)
	}
}

// TestSTSSDKClient checks the header-signed POST path with the real SDK
// client and its XML decoder.
func TestSTSSDKClient(t *testing.T) {
	s := NewSTS(t, "us-west-2")
	role := AssumedRole("111122223333", "nodes", "i-0abc")
	s.AddPrincipal(role)
	client := func(p Principal) *sts.Client {
		return sts.New(sts.Options{Region: "us-west-2", BaseEndpoint: aws.String(s.URL),
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: p.AccessKeyID, SecretAccessKey: p.SecretAccessKey, SessionToken: p.SessionToken}, nil
			})})
	}
	out, err := client(role).GetCallerIdentity(t.Context(), &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(out.Arn) != role.ARN || aws.ToString(out.Account) != role.Account || aws.ToString(out.UserId) != role.UserID {
		t.Errorf("GetCallerIdentity = %s %s %s, want %+v", aws.ToString(out.Arn), aws.ToString(out.Account), aws.ToString(out.UserId), role)
	}
	bad := role
	bad.SecretAccessKey = "wrong"
	if _, err := client(bad).GetCallerIdentity(t.Context(), &sts.GetCallerIdentityInput{}); err == nil || !strings.Contains(err.Error(), "SignatureDoesNotMatch") {
		t.Errorf("wrong secret: %v, want SignatureDoesNotMatch", err)
	}
}

func TestHostsRefusesUnknownHosts(t *testing.T) {
	hosts := NewHosts(t, map[string]http.Handler{testSTSHost: http.NotFoundHandler()})
	_, err := verifyClient(t, hosts).Get("https://example.com/")
	if err == nil {
		t.Fatal("a CONNECT to an unknown host went through")
	}
	if got := hosts.Connects(); len(got) != 1 || got[0] != "example.com:443" {
		t.Errorf("connects %q", got)
	}
}
