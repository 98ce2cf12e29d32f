package awstest

import (
	"strings"
	"testing"
	"time"
)

// Stall is one way a server can stop answering an action, for tests that a
// client's calls stay bounded when the API stalls.
type Stall struct {
	// Name says what the server does; it names the subtest.
	Name string
	// Apply makes b stall action.
	Apply func(b *Behavior, action string)
}

// Stalls are the ways every bounded call must survive: the server accepts
// the request and never answers (Hang), or answers its status and headers
// and then stalls the body (Trickle, a byte an hour), which only a deadline
// on the whole exchange ends.
func Stalls() []Stall {
	return []Stall{
		{Name: "accepts and never answers", Apply: (*Behavior).Hang},
		{Name: "headers, then a stalled body", Apply: func(b *Behavior, action string) { b.Trickle(action, time.Hour) }},
	}
}

// CheckGaveUp fails the test unless err contains want, the call's own words
// for giving up after its attempts, and calls, the calls the server saw, are
// at most attempts. Fewer are fine: an attempt whose deadline passes before
// the server sees it (a loaded machine) is not counted there.
func CheckGaveUp(t testing.TB, err error, want string, calls, attempts int) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v, want the call to give up: %q", err, want)
	}
	if calls > attempts {
		t.Errorf("calls = %d, want at most the %d attempts", calls, attempts)
	}
}
