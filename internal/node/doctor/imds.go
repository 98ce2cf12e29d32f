package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/nodeboot/nodeboot/internal/aws/imds"
)

// IMDS defaults. Answers are graded against init's own limits: the AWS
// SDK's client gives each request 250 ms to connect and 500 ms for the
// answer's headers, and init gives up after 60 such attempts.
const (
	defaultIMDSEndpoint = "http://169.254.169.254"
	imdsStepBound       = 2 * time.Second
	imdsTokenTTL        = "60"
	// imdsSlow is half of init's header limit: slower is a warning.
	imdsSlow = imds.SDKResponseHeaderTimeout / 2
)

// IMDSStep is one request to the metadata service.
type IMDSStep struct {
	// Status is the HTTP status, 0 when nothing answered.
	Status int
	Err    error
	Took   time.Duration
	// Connect is the TCP connect's time, Headers the wait for the
	// answer's first byte after the request was sent.
	Connect, Headers time.Duration
}

// tooSlowForInit says which of init's limits the step exceeded, or "".
func (s IMDSStep) tooSlowForInit() string {
	switch {
	case s.Connect > imds.SDKDialTimeout:
		return fmt.Sprintf("connecting took %s, over the %s init allows", ms(s.Connect), imds.SDKDialTimeout)
	case s.Headers > imds.SDKResponseHeaderTimeout:
		return fmt.Sprintf("the answer took %s, over the %s init waits for it", ms(s.Headers), imds.SDKResponseHeaderTimeout)
	}
	return ""
}

func (s IMDSStep) ok() bool { return s.Err == nil && s.Status == http.StatusOK }

// IMDSEvidence is what the metadata service answered.
type IMDSEvidence struct {
	// Disabled is true when AWS_EC2_METADATA_DISABLED turns IMDS off.
	Disabled bool
	Endpoint string
	Token    IMDSStep
	Identity IMDSStep
	Doc      InstanceIdentity
	// V1 is a plain GET, tried when the token request failed, to tell a
	// hop limit (PUT answers dropped) from no answer at all.
	V1 *IMDSStep
	// Clock is the service's Date header, a clock reference.
	Clock ClockSample
}

// InstanceIdentity is the part of the identity document shown.
type InstanceIdentity struct {
	InstanceID       string `json:"instanceId"`
	Region           string `json:"region"`
	InstanceType     string `json:"instanceType"`
	AvailabilityZone string `json:"availabilityZone"`
}

// IMDSProbe asks the metadata service for a session token and the
// identity document, each bounded, never through a proxy.
type IMDSProbe struct {
	// Endpoint overrides the service URL; empty means
	// $AWS_EC2_METADATA_SERVICE_ENDPOINT, else 169.254.169.254.
	Endpoint string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Bound limits each request; 0 means 2 s.
	Bound time.Duration
}

// Probe gathers IMDS evidence.
func (p IMDSProbe) Probe(ctx context.Context) IMDSEvidence {
	getenv := p.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	ev := IMDSEvidence{Endpoint: strings.TrimSuffix(firstNonEmpty(p.Endpoint, getenv("AWS_EC2_METADATA_SERVICE_ENDPOINT"), defaultIMDSEndpoint), "/")}
	if strings.EqualFold(getenv("AWS_EC2_METADATA_DISABLED"), "true") {
		ev.Disabled = true
		return ev
	}
	bound := p.Bound
	if bound <= 0 {
		bound = imdsStepBound
	}
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DialContext: (&net.Dialer{Timeout: bound}).DialContext}, Timeout: bound}
	token, step, _ := imdsDo(ctx, client, http.MethodPut, ev.Endpoint+"/latest/api/token", map[string]string{"X-aws-ec2-metadata-token-ttl-seconds": imdsTokenTTL})
	ev.Token = step
	if !step.ok() {
		_, v1, _ := imdsDo(ctx, client, http.MethodGet, ev.Endpoint+"/latest/meta-data/instance-id", nil)
		ev.V1 = &v1
		return ev
	}
	var sample ClockSample
	doc, step, sample := imdsDo(ctx, client, http.MethodGet, ev.Endpoint+"/latest/dynamic/instance-identity/document",
		map[string]string{"X-aws-ec2-metadata-token": string(token)})
	ev.Identity, ev.Clock = step, sample
	ev.Clock.Reference = "instance metadata service"
	if step.ok() {
		if err := json.Unmarshal(doc, &ev.Doc); err != nil {
			ev.Identity.Err = fmt.Errorf("decode identity document: %w", err)
		}
	}
	return ev
}

func imdsDo(ctx context.Context, c *http.Client, method, url string, header map[string]string) ([]byte, IMDSStep, ClockSample) {
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return nil, IMDSStep{Err: err}, ClockSample{}
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	var step IMDSStep
	req = req.WithContext(httptrace.WithClientTrace(ctx, stepTrace(&step)))
	sample := ClockSample{Sent: time.Now()}
	resp, err := c.Do(req)
	sample.Received = time.Now()
	step.Err, step.Took = err, sample.Received.Sub(sample.Sent)
	if err != nil {
		return nil, step, ClockSample{}
	}
	defer resp.Body.Close()
	step.Status = resp.StatusCode
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		step.Err = err
	}
	if d, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
		sample.Date = d
	} else {
		sample = ClockSample{}
	}
	return body, step, sample
}

// stepTrace times a request's connect and its wait for the answer.
func stepTrace(step *IMDSStep) *httptrace.ClientTrace {
	var connectStart, wrote time.Time
	return &httptrace.ClientTrace{
		ConnectStart:         func(string, string) { connectStart = time.Now() },
		ConnectDone:          func(string, string, error) { step.Connect = time.Since(connectStart) },
		WroteRequest:         func(httptrace.WroteRequestInfo) { wrote = time.Now() },
		GotFirstResponseByte: func() { step.Headers = time.Since(wrote) },
	}
}

// Network failure causes, as named in reports.
const (
	causeTimeout     = "timeout"
	causeRefused     = "connection refused"
	causeUnreachable = "network unreachable"
	causeDNS         = "name not resolved"
)

// netCause classifies a dial or request error.
func netCause(err error) string {
	var dnsErr *net.DNSError
	var ne net.Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &dnsErr):
		return causeDNS
	case errors.Is(err, syscall.ECONNREFUSED):
		return causeRefused
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.EADDRNOTAVAIL):
		return causeUnreachable
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return causeTimeout
	}
	return ""
}

// imdsVerdict judges the metadata service's answers.
func imdsVerdict(ev IMDSEvidence) Result {
	r := Result{ID: CheckIMDS}
	if ev.Disabled {
		r.Verdict, r.Summary = Warn, "AWS_EC2_METADATA_DISABLED=true: instance metadata is not read"
		r.Action = "Unset AWS_EC2_METADATA_DISABLED unless the config gives every instance detail itself."
		return r
	}
	r.Evidence = append(r.Evidence, "endpoint "+ev.Endpoint)
	if !ev.Token.ok() {
		return imdsTokenFailure(r, ev)
	}
	r.Evidence = append(r.Evidence, fmt.Sprintf("IMDSv2 token in %s", ms(ev.Token.Took)))
	switch id := ev.Identity; {
	case id.Err == nil && id.Status == http.StatusNotFound:
		r.Verdict, r.Summary = Fail, "the identity document answered 404: instance metadata is not available yet"
		r.Action = "IMDS answers 404 early in boot while the instance's metadata propagates: run the doctor again in a minute; if it persists, check the instance's metadata options."
	case id.Err == nil && id.Status == http.StatusUnauthorized:
		r.Verdict, r.Summary = Fail, "the identity document answered 401: the IMDSv2 token was rejected"
		r.Action = "Check for something rewriting requests to 169.254.169.254 (a proxy must not be used for it)."
	case !id.ok():
		r.Verdict, r.Summary = Fail, "the identity document request failed: "+stepString(id)
		r.Action = "Check that nothing between this host and 169.254.169.254 drops or proxies metadata requests."
	case ev.Doc.InstanceID == "" || ev.Doc.Region == "":
		r.Verdict, r.Summary = Fail, fmt.Sprintf("the identity document lacks the instance ID or region (%+v)", ev.Doc)
		r.Action = "The metadata service answered an incomplete document: check AWS_EC2_METADATA_SERVICE_ENDPOINT points at the real service."
	default:
		r.Summary = fmt.Sprintf("IMDSv2 token and identity document: %s (%s, %s, %s)", ev.Doc.InstanceID, ev.Doc.InstanceType, ev.Doc.AvailabilityZone, ev.Doc.Region)
		r.Evidence = append(r.Evidence, fmt.Sprintf("identity document in %s", ms(id.Took)))
		gradeLatency(&r, ev.Token, id)
	}
	return r
}

// gradeLatency judges answers that came against init's limits: every
// request over them fails init's attempts (a failure); one over them, or
// any over half of them, is a warning.
func gradeLatency(r *Result, steps ...IMDSStep) {
	r.Verdict = OK
	var over []string
	slowest := time.Duration(0)
	for _, s := range steps {
		r.Evidence = append(r.Evidence, fmt.Sprintf("connect %s, answer %s", ms(s.Connect), ms(s.Headers)))
		if why := s.tooSlowForInit(); why != "" {
			over = append(over, why)
		}
		slowest = max(slowest, s.Headers, s.Connect)
	}
	limits := fmt.Sprintf("init's metadata client allows %s to connect and %s for each answer, and gives up after %d attempts",
		imds.SDKDialTimeout, imds.SDKResponseHeaderTimeout, imds.DefaultMaxAttempts)
	switch {
	case len(over) == len(steps):
		r.Verdict, r.Summary = Fail, "too slow for init: "+strings.Join(over, "; ")+" ("+limits+")"
		r.Action = "Find what delays 169.254.169.254 on this host (packet loss, a firewall or proxy in the path, CPU starvation at boot): init fails at this latency."
	case len(over) > 0 || slowest > imdsSlow:
		r.Verdict = Warn
		r.Summary += fmt.Sprintf("; slow: up to %s (%s)", ms(slowest), limits)
		r.Action = "Metadata answers near init's limit: check for packet loss or a busy host before it makes boots fail."
	}
}

func imdsTokenFailure(r Result, ev IMDSEvidence) Result {
	r.Verdict = Fail
	r.Evidence = append(r.Evidence, "token request (PUT /latest/api/token): "+stepString(ev.Token))
	if ev.V1 != nil {
		r.Evidence = append(r.Evidence, "plain GET /latest/meta-data/instance-id: "+stepString(*ev.V1))
	}
	cause := netCause(ev.Token.Err)
	v1Answered := ev.V1 != nil && ev.V1.Status != 0
	switch {
	case cause == causeUnreachable || cause == causeRefused:
		r.Summary = fmt.Sprintf("network not up: the metadata service is unreachable (%s)", cause)
		r.Action = "Start nodeboot after network-online.target and check the primary interface, its routes and any firewall rule on 169.254.169.254."
	case cause == causeTimeout && v1Answered:
		r.Summary = "hop limit: the IMDSv2 token request timed out while a plain GET is answered, so PUT answers are dropped on the way back"
		r.Action = "Raise the instance's metadata hop limit to 2 (aws ec2 modify-instance-metadata-options --http-put-response-hop-limit 2) or run nodeboot in the host's network namespace."
	case cause == causeTimeout:
		r.Summary = fmt.Sprintf("the metadata service did not answer within %s", imdsStepBound)
		r.Action = "Check that the instance metadata endpoint is enabled (HttpEndpoint=enabled) and reachable from this network namespace."
	case ev.Token.Err == nil && ev.Token.Status == http.StatusForbidden:
		r.Summary = "the token request answered 403: instance metadata is turned off"
		r.Action = "Enable the instance metadata endpoint (aws ec2 modify-instance-metadata-options --http-endpoint enabled)."
	case ev.Token.Err == nil && ev.Token.Status == http.StatusNotFound:
		r.Summary = "the token request answered 404: this endpoint serves no IMDSv2"
		r.Action = "Point AWS_EC2_METADATA_SERVICE_ENDPOINT at the real metadata service, or unset it."
	default:
		r.Summary = "the IMDSv2 token request failed: " + stepString(ev.Token)
		r.Action = "Check that nothing between this host and 169.254.169.254 drops or proxies metadata requests."
	}
	return r
}

func stepString(s IMDSStep) string {
	switch {
	case s.Err != nil && netCause(s.Err) != "":
		return fmt.Sprintf("%s after %s (%v)", netCause(s.Err), ms(s.Took), s.Err)
	case s.Err != nil:
		return s.Err.Error()
	}
	return fmt.Sprintf("HTTP %d in %s", s.Status, ms(s.Took))
}

func ms(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond / 10).String()
	}
	return d.Round(10 * time.Millisecond).String()
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
