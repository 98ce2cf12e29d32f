package agent

import (
	"context"
	"errors"
	"testing"
)

// TestRunPhaseWithoutDaemons checks that a run phase with no daemon in
// scope (--daemon "") starts nothing and needs no service manager, while
// one with daemons still requires it.
func TestRunPhaseWithoutDaemons(t *testing.T) {
	root := t.TempDir()
	a, _, _ := newTestAgent(t, root, readCase(t, "mime-two-parts-and-shell"), loadCase(t, "testdata/cases/minimal"))
	o := initOpts()
	o.SkipRun, o.Scope = false, Scope{}
	if err := a.Init(context.Background(), o); err != nil {
		t.Fatalf("run phase with no daemons: %v", err)
	}
	o.Scope = AllDaemons
	if err := a.Init(context.Background(), o); !errors.Is(err, ErrNoServiceManager) {
		t.Fatalf("run phase with daemons and no service manager: %v, want ErrNoServiceManager", err)
	}
}
