package awstest

import (
	"testing"
	"time"
)

// HangBound is how long Within lets a call run before calling it a hang. It
// is far above what any bounded call in the tests takes (a few hundred
// milliseconds, seconds on a loaded machine): it only catches a call that
// would never return, and no test asserts a duration below it.
const HangBound = 2 * time.Minute

// Within runs call and fails the test if it has not returned after
// HangBound, that is if it hangs; otherwise it returns what call returned.
func Within[T any](t testing.TB, call func() (T, error)) (T, error) {
	t.Helper()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := call()
		done <- result{v, err}
	}()
	timer := time.NewTimer(HangBound)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.v, r.err
	case <-timer.C:
		t.Fatalf("call still running after %s: unbounded", HangBound)
		panic("unreachable")
	}
}
