package doctor

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

func opErr(errno syscall.Errno) error {
	return &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", errno)}
}

func TestIMDSVerdict(t *testing.T) {
	ok := IMDSStep{Status: 200, Took: 3 * time.Millisecond, Connect: time.Millisecond, Headers: 2 * time.Millisecond}
	slow := IMDSStep{Status: 200, Took: 1500 * time.Millisecond, Connect: time.Millisecond, Headers: 1500 * time.Millisecond}
	doc := InstanceIdentity{InstanceID: "i-0123", Region: "us-west-2", InstanceType: "m5.large", AvailabilityZone: "us-west-2a"}
	timeout := IMDSStep{Err: context.DeadlineExceeded, Took: 2 * time.Second}
	checkVerdicts(t, CheckIMDS, []verdictCase{
		{name: "token and identity", got: imdsVerdict(IMDSEvidence{Endpoint: "http://169.254.169.254", Token: ok, Identity: ok, Doc: doc}),
			verdict: OK, summary: []string{"i-0123", "m5.large", "us-west-2a"}},
		{name: "one answer over init's limit", got: imdsVerdict(IMDSEvidence{Token: slow, Identity: ok, Doc: doc}),
			verdict: Warn, summary: []string{"slow", "500ms for each answer"}},
		{name: "every answer over init's limit", got: imdsVerdict(IMDSEvidence{Token: slow, Identity: slow, Doc: doc}),
			verdict: Fail, summary: []string{"too slow for init", "the answer took 1.5s, over the 500ms init waits for it", "gives up after 60 attempts"}},
		{name: "slow connects", got: imdsVerdict(IMDSEvidence{Token: IMDSStep{Status: 200, Connect: 400 * time.Millisecond}, Identity: IMDSStep{Status: 200, Connect: 300 * time.Millisecond}, Doc: doc}),
			verdict: Fail, summary: []string{"connecting took 400ms, over the 250ms init allows"}},
		{name: "network not up", got: imdsVerdict(IMDSEvidence{Token: IMDSStep{Err: opErr(syscall.ENETUNREACH)}, V1: &IMDSStep{Err: opErr(syscall.ENETUNREACH)}}),
			verdict: Fail, summary: []string{"network not up", "network unreachable"}},
		{name: "nothing listens", got: imdsVerdict(IMDSEvidence{Token: IMDSStep{Err: opErr(syscall.ECONNREFUSED)}}),
			verdict: Fail, summary: []string{"network not up", "connection refused"}},
		{name: "hop limit: PUT answers lost, GET answered", got: imdsVerdict(IMDSEvidence{Token: timeout, V1: &IMDSStep{Status: 401}}),
			verdict: Fail, summary: []string{"hop limit"}, evidence: []string{"HTTP 401"}},
		{name: "no answer at all", got: imdsVerdict(IMDSEvidence{Token: timeout, V1: &timeout}),
			verdict: Fail, summary: []string{"did not answer"}},
		{name: "turned off", got: imdsVerdict(IMDSEvidence{Token: IMDSStep{Status: 403}, V1: &IMDSStep{Status: 403}}),
			verdict: Fail, summary: []string{"403", "turned off"}},
		{name: "identity 404 early in boot", got: imdsVerdict(IMDSEvidence{Token: ok, Identity: IMDSStep{Status: 404}}),
			verdict: Fail, summary: []string{"404"}},
		{name: "token rejected", got: imdsVerdict(IMDSEvidence{Token: ok, Identity: IMDSStep{Status: 401}}),
			verdict: Fail, summary: []string{"401"}},
		{name: "incomplete identity", got: imdsVerdict(IMDSEvidence{Token: ok, Identity: ok, Doc: InstanceIdentity{InstanceID: "i-1"}}),
			verdict: Fail, summary: []string{"lacks"}},
		{name: "identity request error", got: imdsVerdict(IMDSEvidence{Token: ok, Identity: IMDSStep{Err: errors.New("EOF")}}),
			verdict: Fail, summary: []string{"EOF"}},
		{name: "disabled", got: imdsVerdict(IMDSEvidence{Disabled: true}), verdict: Warn, summary: []string{"AWS_EC2_METADATA_DISABLED"}},
	})
}

// imdsServer speaks the IMDSv2 handshake; hangPUT drops token requests
// (what a hop limit does to their answers).
func imdsServer(t *testing.T, hangPUT bool) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /latest/api/token", func(w http.ResponseWriter, r *http.Request) {
		if hangPUT {
			<-r.Context().Done()
			return
		}
		if r.Header.Get("X-aws-ec2-metadata-token-ttl-seconds") == "" {
			w.WriteHeader(400)
			return
		}
		_, _ = w.Write([]byte("tok"))
	})
	mux.HandleFunc("GET /latest/dynamic/instance-identity/document", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-aws-ec2-metadata-token") != "tok" {
			w.WriteHeader(401)
			return
		}
		_, _ = w.Write([]byte(`{"instanceId":"i-0abc","region":"eu-west-1","instanceType":"t3.small","availabilityZone":"eu-west-1b","accountId":"1"}`))
	})
	mux.HandleFunc("GET /latest/meta-data/instance-id", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(401) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestIMDSProbe(t *testing.T) {
	ctx := context.Background()
	t.Run("answers", func(t *testing.T) {
		ev := IMDSProbe{Endpoint: imdsServer(t, false)}.Probe(ctx)
		if !ev.Token.ok() || !ev.Identity.ok() || ev.Doc.InstanceID != "i-0abc" || !ev.Clock.Valid() || ev.V1 != nil {
			t.Errorf("evidence %+v", ev)
		}
		if r := imdsVerdict(ev); r.Verdict != OK {
			t.Errorf("verdict %+v", r)
		}
	})
	t.Run("hop limit", func(t *testing.T) {
		ev := IMDSProbe{Endpoint: imdsServer(t, true), Bound: 200 * time.Millisecond}.Probe(ctx)
		if r := imdsVerdict(ev); r.Verdict != Fail || netCause(ev.Token.Err) != causeTimeout || ev.V1 == nil || ev.V1.Status != 401 {
			t.Errorf("evidence %+v, verdict %+v", ev, r)
		}
	})
	t.Run("nothing listens", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		ev := IMDSProbe{Endpoint: "http://" + addr}.Probe(ctx)
		if netCause(ev.Token.Err) != causeRefused {
			t.Errorf("token step %+v: want connection refused", ev.Token)
		}
	})
	t.Run("answers slower than init allows", func(t *testing.T) {
		s := awstest.NewIMDS(t)
		s.SetIdentity("i-0slow", "us-west-2", "m5.large", "us-west-2a")
		s.SetDelay(awstest.PathToken, 700*time.Millisecond)
		s.SetDelay(awstest.PathIdentity, 700*time.Millisecond)
		ev := IMDSProbe{Endpoint: s.URL}.Probe(ctx)
		if r := imdsVerdict(ev); r.Verdict != Fail || !strings.Contains(r.Summary, "too slow for init") {
			t.Errorf("verdict %+v (token %+v)", r, ev.Token)
		}
	})
	t.Run("environment", func(t *testing.T) {
		env := map[string]string{"AWS_EC2_METADATA_SERVICE_ENDPOINT": imdsServer(t, false) + "/", "AWS_EC2_METADATA_DISABLED": "false"}
		ev := IMDSProbe{Getenv: func(k string) string { return env[k] }}.Probe(ctx)
		if ev.Doc.Region != "eu-west-1" {
			t.Errorf("evidence %+v", ev)
		}
		env["AWS_EC2_METADATA_DISABLED"] = "true"
		if ev := (IMDSProbe{Getenv: func(k string) string { return env[k] }}).Probe(ctx); !ev.Disabled {
			t.Errorf("not disabled: %+v", ev)
		}
	})
}
