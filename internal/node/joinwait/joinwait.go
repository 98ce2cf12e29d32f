// Package joinwait is the end of `nodeboot init`'s run phase: it waits a
// bounded time for the kubelet's Node to register and, when it does not,
// runs the doctor, writes its report to the console (where operators look:
// the unit sends stderr to the serial console) and into a support bundle,
// and fails the run.
package joinwait

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/doctor"
)

// ErrNotRegistered is returned when the Node did not register in time.
var ErrNotRegistered = errors.New("the node did not register")

// Defaults.
const (
	// DefaultTimeout is how long init waits for the Node (--registration-timeout).
	DefaultTimeout = 5 * time.Minute
	// DefaultInterval is the longest pause between two registration
	// checks; the first pauses are shorter (1 s, doubling), since a
	// healthy kubelet registers within seconds.
	DefaultInterval = 5 * time.Second
	firstInterval   = time.Second
	// diagnoseBound bounds the doctor and the bundle after a timeout, so
	// a wedged host cannot hold the boot forever.
	diagnoseBound = 11 * time.Minute
)

// Waiter waits for registration and diagnoses a node that did not join.
type Waiter struct {
	// Timeout is how long to wait; it must be positive.
	Timeout time.Duration
	// Interval is the longest pause between checks; 0 means DefaultInterval.
	Interval time.Duration
	// Registered checks once whether the Node exists, and says why not.
	Registered func(ctx context.Context) (bool, error)
	// Diagnose runs the doctor.
	Diagnose func(ctx context.Context) doctor.Report
	// Bundle writes a support bundle holding the report and returns its path.
	Bundle func(ctx context.Context, rep doctor.Report) (string, error)
	// Console receives the report.
	Console io.Writer
	Log     *slog.Logger
}

// Wait returns nil once the Node is registered. After Timeout it runs the
// doctor, prints the report, writes the bundle and returns an error
// wrapping ErrNotRegistered.
func (w Waiter) Wait(ctx context.Context) error {
	interval := w.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	start := time.Now()
	deadline := time.NewTimer(w.Timeout)
	defer deadline.Stop()
	var last error
	pause := min(firstInterval, interval)
	for attempt := 1; ; attempt++ {
		ok, err := w.Registered(ctx)
		if ok {
			w.Log.Info("node registered", "after", time.Since(start).Round(time.Millisecond), "checks", attempt)
			return nil
		}
		last = err
		w.Log.Debug("node not registered yet", "reason", err)
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the node to register: %w", ctx.Err())
		case <-deadline.C:
			return w.diagnose(ctx, last)
		case <-time.After(pause):
		}
		pause = min(2*pause, interval)
	}
}

// diagnose runs the doctor and the bundle after a timeout, within
// diagnoseBound; a signal (ctx) stops both at their next step, and the
// bundle is written with what it has.
func (w Waiter) diagnose(ctx context.Context, last error) error {
	w.Log.Error("the node did not register; running the doctor", "timeout", w.Timeout, "last", last)
	ctx, cancel := context.WithTimeout(ctx, diagnoseBound)
	defer cancel()
	rep := w.Diagnose(ctx)
	if err := rep.WriteText(w.Console); err != nil {
		w.Log.Warn("could not write the doctor report to the console", "error", err)
	}
	where := "no support bundle"
	if path, err := w.Bundle(ctx, rep); err != nil {
		w.Log.Error("could not write the support bundle", "error", err)
		where += " (" + err.Error() + ")"
	} else {
		where = "the support bundle " + path
		fmt.Fprintf(w.Console, "support bundle: %s\n", path)
	}
	err := fmt.Errorf("%w within %s (last check: %v); the doctor report above and %s say why", ErrNotRegistered, w.Timeout, last, where)
	if ctx.Err() != nil {
		err = fmt.Errorf("%w (diagnosis cut short: %w)", err, context.Cause(ctx))
	}
	return err
}
