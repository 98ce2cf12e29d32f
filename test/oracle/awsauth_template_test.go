//go:build oracle

package oracle

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/nodeboot/nodeboot/internal/config/awsauth"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
	"github.com/nodeboot/nodeboot/internal/testing/gobuild"
)

// The account, region and cluster of the template oracle.
const (
	tplAccount = "111122223333"
	tplRegion  = "us-west-2"
	tplCluster = "nodeboot-oracle"
)

var (
	tplSTSHost = "sts." + tplRegion + ".amazonaws.com"
	tplEC2Host = "ec2." + tplRegion + ".amazonaws.com"
)

// authServer is EKS's authenticator's own webhook server
// (test/tools/authenticator/authserveroracle) serving one aws-auth, with
// STS and the region's EC2 API as local stubs it reaches over HTTPS, as
// the e2e suite runs the binary.
type authServer struct {
	url    string
	client *http.Client
	sts    *awstest.STS
	ec2    *awstest.EC2
	stderr *logTail
}

// startAuthServer builds and starts the server with data as aws-auth; it
// stops when the test ends.
func startAuthServer(t *testing.T, data map[string]string) *authServer {
	t.Helper()
	s := &authServer{sts: awstest.NewSTS(t, tplRegion), ec2: awstest.NewEC2(t), stderr: &logTail{}}
	hosts := awstest.NewHosts(t, map[string]http.Handler{tplSTSHost: s.sts.Handler(), tplEC2Host: s.ec2.Handler()})
	// Made before the process starts, so removed after it ends.
	stateDir := t.TempDir()
	bin := filepath.Join(t.TempDir(), "authserveroracle")
	// The tools module's own pins, as for awsauthoracle.
	if err := gobuild.Build(t.Context(), "../tools/authenticator", bin, "./authserveroracle", ""); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = authServerEnv(t.TempDir(), hosts)
	cmd.Stderr = s.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	if err := s.handshake(in, out, stateDir, data); err != nil {
		t.Fatalf("%v; its log ends:\n%s", err, s.stderr)
	}
	return s
}

// authServerEnv is the control plane's environment in the e2e suite: the
// stubs behind HTTPS_PROXY, the region, its own credentials (for
// DescribeInstances), no instance metadata and no AWS files.
func authServerEnv(dir string, hosts *awstest.Hosts) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") && !strings.HasPrefix(strings.ToUpper(kv), "HTTPS_PROXY=") && !strings.HasPrefix(kv, "SSL_CERT") {
			env = append(env, kv)
		}
	}
	return append(append(env, hosts.Env()...), "AWS_REGION="+tplRegion,
		"AWS_ACCESS_KEY_ID=AKIDNODEBOOTORACLECP", "AWS_SECRET_ACCESS_KEY=nodeboot-oracle-control-plane",
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_CONFIG_FILE="+filepath.Join(dir, "no-aws-config"), "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(dir, "no-aws-credentials"))
}

// handshake sends aws-auth and the directory for the server's key and
// reads where the server listens and its certificate.
func (s *authServer) handshake(in io.Writer, out io.Reader, stateDir string, data map[string]string) error {
	b, err := json.Marshal(map[string]any{"clusterID": tplCluster, "stateDir": stateDir, "data": data})
	if err != nil {
		return err
	}
	if _, err := in.Write(append(b, '\n')); err != nil {
		return err
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	if !sc.Scan() {
		return fmt.Errorf("authserveroracle ended: %v", sc.Err())
	}
	var r struct{ URL, CertPEM, Error string }
	if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
		return err
	}
	if r.Error != "" {
		return errors.New("authserveroracle: " + r.Error)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM([]byte(r.CertPEM)) {
		return errors.New("authserveroracle: no certificate")
	}
	s.url = r.URL
	s.client = &http.Client{Timeout: time.Minute, // only a hang
		Transport: &http.Transport{Proxy: nil, TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}}
	return nil
}

// review is the server's answer to a TokenReview.
type review struct {
	Status        int
	Authenticated bool
	Username      string
	Groups        []string
}

func (r review) String() string {
	if !r.Authenticated {
		return fmt.Sprintf("denied (%d)", r.Status)
	}
	return fmt.Sprintf("%q %q", r.Username, r.Groups)
}

// authenticate sends p's token as the API server does and returns the
// server's answer.
func (s *authServer) authenticate(ctx context.Context, p awstest.Principal) (review, error) {
	tok, err := eksToken(ctx, p)
	if err != nil {
		return review{}, err
	}
	body, _ := json.Marshal(map[string]any{"apiVersion": "authentication.k8s.io/v1beta1", "kind": "TokenReview",
		"spec": map[string]any{"token": tok}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return review{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return review{}, err
	}
	defer resp.Body.Close()
	var tr struct {
		Status struct {
			Authenticated bool
			User          struct {
				Username string
				Groups   []string
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&tr); err != nil {
		return review{}, fmt.Errorf("TokenReview answer (%s): %w", resp.Status, err)
	}
	return review{Status: resp.StatusCode, Authenticated: tr.Status.Authenticated,
		Username: tr.Status.User.Username, Groups: tr.Status.User.Groups}, nil
}

// eksToken is the token `aws eks get-token` makes for p: a GetCallerIdentity
// URL presigned with the cluster header, base64url after k8s-aws-v1.
func eksToken(ctx context.Context, p awstest.Principal) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+tplSTSHost+"/?Action=GetCallerIdentity&Version=2011-06-15&X-Amz-Expires=60", nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("x-k8s-aws-id", tplCluster)
	creds := aws.Credentials{AccessKeyID: p.AccessKeyID, SecretAccessKey: p.SecretAccessKey, SessionToken: p.SessionToken}
	const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	url, _, err := v4.NewSigner().PresignHTTP(ctx, creds, req, emptySHA256, "sts", tplRegion, time.Now().UTC())
	if err != nil {
		return "", fmt.Errorf("presign: %w", err)
	}
	return "k8s-aws-v1." + base64.RawURLEncoding.EncodeToString([]byte(url)), nil
}

// TestAuthenticatorRendersTemplates sends the authenticator's own server a
// token of every identity for every templated mapping and requires the
// user it answers (username and groups rendered by its renderTemplate,
// {{EC2PrivateDNSName}} resolved through DescribeInstances) to be the one
// awsauth.Render predicts, and, for nodes, `nodeboot access check`'s
// verdict to match whether the answer lets the node register.
func TestAuthenticatorRendersTemplates(t *testing.T) {
	data := tplAWSAuth()
	s := startAuthServer(t, data)
	m, problems := awsauth.Parse(data)
	if len(problems) > 0 {
		t.Fatalf("aws-auth: %v", problems)
	}
	noDNS := map[string]bool{}
	for _, in := range tplInstances {
		s.ec2.AddInstance(in)
	}
	for i, mapping := range tplMappings {
		t.Run(mapping.name, func(t *testing.T) {
			for _, id := range tplIdentities {
				p, session := id.principal(i)
				s.sts.AddPrincipal(p)
				if id.noDNS {
					s.ec2.AddInstance(awstest.Instance{ID: session, EmptyNameCalls: -1})
					noDNS[session] = true
				}
				got, err := s.authenticate(t.Context(), p)
				if err != nil {
					t.Fatalf("%s: %v; the server's log ends:\n%s", id.name, err, s.stderr)
				}
				if want := predictReview(m, p, session, tplDNS(noDNS)); !sameReview(got, want) {
					t.Errorf("%s (%s): authenticator %v, nodeboot %v", id.name, p.ARN, got, want)
				}
				if got.Authenticated && len(got.Groups) == len(mapping.groups) { // else the comparison above failed
					compareUnknown(t, mapping.username, got.Username)
					for j, g := range mapping.groups {
						compareUnknown(t, g, got.Groups[j])
					}
				}
				if slices.ContainsFunc(tplInstances, func(in awstest.Instance) bool { return in.ID == session }) {
					compareVerdicts(t, mapping, session, got)
				}
			}
		})
	}
	t.Run("an empty private DNS name is kept", func(t *testing.T) { testEmptyPrivateDNSNameKept(t, s) })
}

// testEmptyPrivateDNSNameKept asks for instances without a private DNS name
// again: the authenticator keeps the empty name it first got (awsauth.Session
// says so, and the doctor explains awsauth.UnresolvedNodeUsername), even
// once DescribeInstances shows the name.
func testEmptyPrivateDNSNameKept(t *testing.T, s *authServer) {
	for _, in := range []awstest.Instance{
		{ID: "i-0000000000000beef", EmptyNameCalls: -1},
		{ID: "i-0000000000000cafe", PrivateDNSName: "ip-10-0-0-9.us-west-2.compute.internal", EmptyNameCalls: 1},
	} {
		s.ec2.AddInstance(in)
		p := awstest.AssumedRole(tplAccount, tplName(0), in.ID) // EKS's node entry
		s.sts.AddPrincipal(p)
		for i, want := range []review{{}, {Authenticated: true, Username: awsauth.UnresolvedNodeUsername}, {Authenticated: true, Username: awsauth.UnresolvedNodeUsername}} {
			got, err := s.authenticate(t.Context(), p)
			if err != nil {
				t.Fatal(err)
			}
			if got.Authenticated != want.Authenticated || got.Username != want.Username {
				t.Errorf("%s (private DNS name %q after %d empty answers), request %d: authenticator %v, nodeboot %v",
					in.ID, in.PrivateDNSName, in.EmptyNameCalls, i+1, got, want)
			}
		}
	}
}
