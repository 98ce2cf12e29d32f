package service

import (
	"context"
	"fmt"
)

// StopIfActive stops unit when it is running (active, activating or
// reloading), waits for the stop job, and reports whether it stopped it.
// The local disk setup uses it before it covers a daemon's directory.
func (s *Systemd) StopIfActive(ctx context.Context, unit string) (bool, error) {
	prop, err := s.conn.GetUnitPropertyContext(ctx, unit, "ActiveState")
	if err != nil {
		return false, fmt.Errorf("%s state: %w", unit, err)
	}
	switch state, _ := prop.Value.Value().(string); state {
	case "active", "activating", "reloading":
	default:
		return false, nil
	}
	done := make(chan string, 1)
	if _, err := s.conn.StopUnitContext(ctx, unit, "replace", done); err != nil {
		return false, fmt.Errorf("stop %s: %w", unit, err)
	}
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	select {
	case result := <-done:
		if result != "done" {
			return true, fmt.Errorf("stop %s: job %s", unit, result)
		}
		return true, nil
	case <-ctx.Done():
		return true, fmt.Errorf("stop %s: %w", unit, ctx.Err())
	}
}

// StopIfActive records "stop-if-active <unit>" and reports the unit as
// running when Active says so.
func (r *Recorder) StopIfActive(_ context.Context, unit string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Calls = append(r.Calls, "stop-if-active "+unit)
	return r.Active[unit], nil
}
