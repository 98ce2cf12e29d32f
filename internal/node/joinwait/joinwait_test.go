package joinwait

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/doctor"
)

func TestWait(t *testing.T) {
	report := doctor.Report{Node: "n1", Failed: 1, Checks: []doctor.Result{{ID: doctor.CheckEndpoint, Title: "API endpoint", Verdict: doctor.Fail,
		Summary: "wrong CA", Action: "Fix the CA."}}}
	tests := []struct {
		name       string
		registered func(n int) (bool, error)
		bundleErr  error
		err        error
		console    []string
		diagnosed  bool
	}{
		{name: "registers after a few checks", registered: func(n int) (bool, error) { return n >= 3, errors.New("Node n1 not registered yet") }},
		{name: "never registers: report and bundle", registered: func(int) (bool, error) { return false, errors.New("x509: unknown authority") },
			err: ErrNotRegistered, diagnosed: true, console: []string{"FAIL  API endpoint", "wrong CA", "support bundle: /var/log/support/nodeboot-logs.tar.gz"}},
		{name: "never registers, bundle fails: still reported", registered: func(int) (bool, error) { return false, nil },
			bundleErr: errors.New("not enough free space"), err: ErrNotRegistered, diagnosed: true, console: []string{"wrong CA"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var console bytes.Buffer
			calls, diagnosed := 0, false
			w := Waiter{
				Timeout: 50 * time.Millisecond, Interval: time.Millisecond, Console: &console,
				Log:        slog.New(slog.NewTextHandler(io.Discard, nil)),
				Registered: func(context.Context) (bool, error) { calls++; return tc.registered(calls) },
				Diagnose:   func(context.Context) doctor.Report { diagnosed = true; return report },
				Bundle: func(_ context.Context, rep doctor.Report) (string, error) {
					if rep.Node != "n1" {
						t.Errorf("bundle got report %+v", rep)
					}
					return "/var/log/support/nodeboot-logs.tar.gz", tc.bundleErr
				},
			}
			err := w.Wait(context.Background())
			if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("Wait() = %v, want %v", err, tc.err)
			}
			if diagnosed != tc.diagnosed {
				t.Errorf("diagnosed = %v", diagnosed)
			}
			for _, want := range tc.console {
				if !strings.Contains(console.String(), want) {
					t.Errorf("console lacks %q:\n%s", want, console.String())
				}
			}
			if tc.bundleErr != nil && !strings.Contains(err.Error(), "not enough free space") {
				t.Errorf("error does not say the bundle failed: %v", err)
			}
		})
	}
}

func TestWaitStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := Waiter{Timeout: time.Hour, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Registered: func(context.Context) (bool, error) { return false, nil },
		Diagnose:   func(context.Context) doctor.Report { t.Error("diagnosed after cancel"); return doctor.Report{} }}
	if err := w.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait() = %v", err)
	}
}

// TestDiagnosisHonoursCancellation: a signal during the diagnosis after a
// timeout reaches the doctor and the bundle (they stop at their next
// step) instead of being held off for the diagnosis bound.
func TestDiagnosisHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var bundleCtx context.Context
	w := Waiter{Timeout: time.Millisecond, Interval: time.Millisecond, Console: io.Discard,
		Log:        slog.New(slog.NewTextHandler(io.Discard, nil)),
		Registered: func(context.Context) (bool, error) { return false, nil },
		Diagnose:   func(context.Context) doctor.Report { cancel(); return doctor.Report{} },
		Bundle: func(ctx context.Context, _ doctor.Report) (string, error) {
			bundleCtx = ctx
			return "/b", nil
		},
	}
	err := w.Wait(ctx)
	if !errors.Is(err, ErrNotRegistered) || !strings.Contains(err.Error(), "diagnosis cut short: context canceled") {
		t.Errorf("Wait() = %v", err)
	}
	if bundleCtx == nil || bundleCtx.Err() == nil {
		t.Error("the bundle ran with a context the signal did not reach")
	}
}
