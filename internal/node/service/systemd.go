package service

import (
	"context"
	"fmt"
	"time"

	"github.com/coreos/go-systemd/v22/dbus"
)

// Systemd controls units through systemd's D-Bus API.
type Systemd struct {
	conn *dbus.Conn
	// Poll is how often ActiveState is checked while waiting.
	Poll time.Duration
	// Timeout bounds the wait for a unit to become active (nodeadm waits forever).
	Timeout time.Duration
}

// NewSystemd connects to the system bus.
func NewSystemd(ctx context.Context) (*Systemd, error) {
	conn, err := dbus.NewSystemConnectionContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect to systemd: %w", err)
	}
	return &Systemd{conn: conn, Poll: 250 * time.Millisecond, Timeout: 5 * time.Minute}, nil
}

// Close closes the D-Bus connection.
func (s *Systemd) Close() { s.conn.Close() }

// DaemonReload runs the equivalent of `systemctl daemon-reload`.
func (s *Systemd) DaemonReload(ctx context.Context) error {
	if err := s.conn.ReloadContext(ctx); err != nil {
		return fmt.Errorf("daemon-reload: %w", err)
	}
	return nil
}

// Restart restarts unit (mode "replace") and waits until ActiveState=active.
func (s *Systemd) Restart(ctx context.Context, unit string) error {
	done := make(chan string, 1)
	if _, err := s.conn.RestartUnitContext(ctx, unit, "replace", done); err != nil {
		return fmt.Errorf("restart %s: %w", unit, err)
	}
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	select {
	case result := <-done:
		if result != "done" {
			return fmt.Errorf("restart %s: job %s", unit, result)
		}
	case <-ctx.Done():
		return fmt.Errorf("restart %s: %w", unit, ctx.Err())
	}
	return s.waitActive(ctx, unit)
}

func (s *Systemd) waitActive(ctx context.Context, unit string) error {
	tick := time.NewTicker(s.Poll)
	defer tick.Stop()
	for {
		prop, err := s.conn.GetUnitPropertyContext(ctx, unit, "ActiveState")
		if err != nil {
			return fmt.Errorf("%s state: %w", unit, err)
		}
		state, _ := prop.Value.Value().(string)
		switch state {
		case "active":
			return nil
		case "failed":
			return fmt.Errorf("%w: %s failed", ErrNotActive, unit)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %s is %q: %w", ErrNotActive, unit, state, ctx.Err())
		case <-tick.C:
		}
	}
}
