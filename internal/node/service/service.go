// Package service starts the node's daemons. Production nodes use systemd
// over D-Bus; tests use Recorder. The agent only needs two operations:
// reload unit files after writing drop-ins, and restart a unit and wait until
// it is active.
package service

import (
	"context"
	"errors"
	"sync"
)

// ErrNotActive is returned when a unit does not become active in time.
var ErrNotActive = errors.New("unit did not become active")

// Manager controls system services.
type Manager interface {
	// DaemonReload makes the service manager re-read unit files and drop-ins.
	DaemonReload(ctx context.Context) error
	// Restart restarts unit and waits until it is active (or ctx ends).
	Restart(ctx context.Context, unit string) error
}

// Recorder is a Manager that records calls; Fail makes a unit's restart
// fail, Active says which units StopIfActive finds running.
type Recorder struct {
	mu     sync.Mutex
	Calls  []string
	Fail   map[string]error
	Active map[string]bool
}

// DaemonReload records "daemon-reload".
func (r *Recorder) DaemonReload(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Calls = append(r.Calls, "daemon-reload")
	return nil
}

// Restart records "restart <unit>" and returns the configured failure.
func (r *Recorder) Restart(_ context.Context, unit string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Calls = append(r.Calls, "restart "+unit)
	return r.Fail[unit]
}
