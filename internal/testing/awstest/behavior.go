package awstest

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Fault is one injected error answer.
type Fault struct {
	// Status is the HTTP status code.
	Status int
	// Code is the AWS error code (EC2 <Code>, EKS x-amzn-ErrorType).
	Code string
	// Message is the error message.
	Message string
}

// Faults commonly injected.
var (
	// EC2Throttling is how EC2 throttles: 503 RequestLimitExceeded.
	EC2Throttling = Fault{Status: http.StatusServiceUnavailable, Code: "RequestLimitExceeded", Message: "Request limit exceeded."}
	// EC2InternalError is an EC2 500.
	EC2InternalError = Fault{Status: http.StatusInternalServerError, Code: "InternalError", Message: "An internal error has occurred."}
	// EKSThrottling is how EKS throttles: 429 ThrottlingException.
	EKSThrottling = Fault{Status: http.StatusTooManyRequests, Code: "ThrottlingException", Message: "Rate exceeded"}
	// EKSServerError is an EKS 500.
	EKSServerError = Fault{Status: http.StatusInternalServerError, Code: "ServerException", Message: "Internal failure."}
	// TooManyRequests is a bare 429 with an error code the SDK does not know.
	TooManyRequests = Fault{Status: http.StatusTooManyRequests, Code: "TooManyRequests", Message: "slow down"}
)

// Behavior is the call accounting and fault/delay injection every server
// shares; its methods are promoted to EC2, EKS and IMDS.
type Behavior struct {
	mu       sync.Mutex
	calls    map[string]int
	faults   map[string][]Fault
	always   map[string]Fault
	delays   map[string]time.Duration
	trickles map[string]time.Duration
}

// init makes the zero Behavior usable; b.mu is held.
func (b *Behavior) init() {
	if b.calls == nil {
		b.calls, b.faults, b.always = map[string]int{}, map[string][]Fault{}, map[string]Fault{}
		b.delays, b.trickles = map[string]time.Duration{}, map[string]time.Duration{}
	}
}

// forever is a delay longer than any test: the server holds the request
// until the client goes away.
const forever = 24 * time.Hour

// begin counts a call of action and returns the fault to answer with, if
// one is queued, after sleeping the action's delay (or until ctx ends).
func (b *Behavior) begin(ctx context.Context, action string) (Fault, bool) {
	b.mu.Lock()
	b.init()
	b.calls[action]++
	delay := b.delays[action]
	fault, queued := b.always[action]
	if len(b.faults[action]) > 0 {
		fault, queued = b.faults[action][0], true
		b.faults[action] = b.faults[action][1:]
	}
	b.mu.Unlock()
	if delay > 0 {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
	}
	return fault, queued
}

// FailNext makes the next len(faults) calls of action answer with faults, in
// order; later calls succeed again.
func (b *Behavior) FailNext(action string, faults ...Fault) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	b.faults[action] = append(b.faults[action], faults...)
}

// FailAlways makes every call of action answer with fault, after any
// faults queued with FailNext.
func (b *Behavior) FailAlways(action string, fault Fault) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	b.always[action] = fault
}

// StopFailing ends FailAlways for action.
func (b *Behavior) StopFailing(action string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	delete(b.always, action)
}

// SetDelay delays every answer to action by d.
func (b *Behavior) SetDelay(action string, d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	b.delays[action] = d
}

// Hang makes the server accept every request for action and never answer
// it: the request is held until the client gives up.
func (b *Behavior) Hang(action string) { b.SetDelay(action, forever) }

// Trickle makes answers to action send their status and headers at once and
// then the body one byte every interval, like a server that stalls midway:
// only a deadline on the whole exchange, body included, ends the wait.
func (b *Behavior) Trickle(action string, interval time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	b.trickles[action] = interval
}

// body returns the writer an answer to action is written through: w itself,
// or a trickling writer when Trickle was set for action.
func (b *Behavior) body(r *http.Request, action string, w http.ResponseWriter) http.ResponseWriter {
	b.mu.Lock()
	b.init()
	interval := b.trickles[action]
	b.mu.Unlock()
	if interval <= 0 {
		return w
	}
	return &trickleWriter{ResponseWriter: w, ctx: r.Context(), interval: interval}
}

// trickleWriter writes its body one byte per interval, flushing each, and
// stops when the client has gone away.
type trickleWriter struct {
	http.ResponseWriter
	ctx      context.Context
	interval time.Duration
}

func (t *trickleWriter) Write(p []byte) (int, error) {
	if h := t.Header(); h.Get("Content-Length") == "" {
		// Announce the whole body, so that the client waits for all of it.
		h.Set("Content-Length", strconv.Itoa(len(p)))
	}
	flusher, _ := t.ResponseWriter.(http.Flusher)
	for i := range p {
		if _, err := t.ResponseWriter.Write(p[i : i+1]); err != nil {
			return i, err
		}
		if flusher != nil {
			flusher.Flush()
		}
		timer := time.NewTimer(t.interval)
		select {
		case <-timer.C:
		case <-t.ctx.Done():
			timer.Stop()
			return i + 1, t.ctx.Err()
		}
	}
	return len(p), nil
}

// Calls returns how many requests for action arrived, failed ones included.
func (b *Behavior) Calls(action string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.calls[action]
}

// TotalCalls returns the number of requests of every action.
func (b *Behavior) TotalCalls() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, c := range b.calls {
		n += c
	}
	return n
}

// startLoopback serves h on 127.0.0.1:<free port> until the test ends.
func startLoopback(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("awstest: listen on 127.0.0.1: %v", err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}
