package awstest

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
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
	mu     sync.Mutex
	calls  map[string]int
	faults map[string][]Fault
	delays map[string]time.Duration
}

// init makes the zero Behavior usable; b.mu is held.
func (b *Behavior) init() {
	if b.calls == nil {
		b.calls, b.faults, b.delays = map[string]int{}, map[string][]Fault{}, map[string]time.Duration{}
	}
}

// begin counts a call of action and returns the fault to answer with, if
// one is queued, after sleeping the action's delay (or until ctx ends).
func (b *Behavior) begin(ctx context.Context, action string) (Fault, bool) {
	b.mu.Lock()
	b.init()
	b.calls[action]++
	delay := b.delays[action]
	var fault Fault
	queued := len(b.faults[action]) > 0
	if queued {
		fault = b.faults[action][0]
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

// SetDelay delays every answer to action by d.
func (b *Behavior) SetDelay(action string, d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	b.delays[action] = d
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
