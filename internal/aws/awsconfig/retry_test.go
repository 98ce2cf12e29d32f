package awsconfig

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
)

func TestFullJitterCeiling(t *testing.T) {
	j := FullJitter{BaseDelay: 500 * time.Millisecond, MaxDelay: 20 * time.Second}
	tests := []struct {
		name    string
		attempt int
		want    time.Duration
	}{
		{name: "first retry", attempt: 1, want: 500 * time.Millisecond},
		{name: "second retry doubles", attempt: 2, want: time.Second},
		{name: "sixth retry", attempt: 6, want: 16 * time.Second},
		{name: "seventh retry capped", attempt: 7, want: 20 * time.Second},
		{name: "far retry capped", attempt: 60, want: 20 * time.Second},
		{name: "nonsense attempt treated as first", attempt: 0, want: 500 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := j.Ceiling(tc.attempt); got != tc.want {
				t.Errorf("Ceiling(%d) = %s, want %s", tc.attempt, got, tc.want)
			}
		})
	}
}

func TestFullJitterDelayStaysBelowCeilingAndVaries(t *testing.T) {
	j := FullJitter{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	seen := map[time.Duration]bool{}
	for i := 0; i < 200; i++ {
		d, err := j.BackoffDelay(3, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d < 0 || d >= 400*time.Millisecond {
			t.Fatalf("delay %s outside [0, 400ms)", d)
		}
		seen[d] = true
	}
	if len(seen) < 100 {
		t.Errorf("only %d distinct delays in 200 draws: not jittered", len(seen))
	}
	if got := (FullJitter{}).Delay(5); got != 0 {
		t.Errorf("zero FullJitter delay = %s, want 0", got)
	}
}

func TestAttempts(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{name: "max attempts error", err: &retry.MaxAttemptsError{Attempt: 4, Err: errors.New("throttled")}, want: 4},
		{name: "wrapped", err: fmt.Errorf("op: %w", &retry.MaxAttemptsError{Attempt: 2, Err: errors.New("x")}), want: 2},
		{name: "other error", err: errors.New("denied"), want: 0},
		{name: "nil", err: nil, want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Attempts(tc.err); got != tc.want {
				t.Errorf("Attempts = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestCallError(t *testing.T) {
	maxErr := func(n int, err error) error { return &retry.MaxAttemptsError{Attempt: n, Err: err} }
	tests := []struct {
		name string
		err  error
		want string
	}{
		{name: "retries ran out", err: maxErr(3, errors.New("throttled")), want: "ec2 X: gave up after 3 attempts: "},
		{name: "retries ran out, the last timed out", err: maxErr(2, fmt.Errorf("send: %w", context.DeadlineExceeded)),
			want: "ec2 X: gave up after 2 attempts (the last timed out): "},
		{name: "timed out once", err: fmt.Errorf("send: %w", context.DeadlineExceeded), want: "ec2 X: timed out: "},
		{name: "other failure", err: errors.New("denied"), want: "ec2 X: denied"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := CallError("ec2 X", tc.err)
			if !strings.HasPrefix(got.Error(), tc.want) || !errors.Is(got, tc.err) {
				t.Errorf("CallError = %q, want prefix %q wrapping the cause", got, tc.want)
			}
		})
	}
}
