package agent

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/inroot"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
	"github.com/nodeboot/nodeboot/internal/testing/nodetest"
)

// TestConfigPhaseHoldsTheRootLock: while another run holds the root's lock,
// the config phase waits (and says so) instead of writing alongside it.
func TestConfigPhaseHoldsTheRootLock(t *testing.T) {
	root := t.TempDir()
	a, _, _ := newTestAgent(t, root, readCase(t, "minimal"), loadCase(t, "testdata/cases/minimal"))
	var log nodetest.SyncBuffer
	a.Log = slog.New(slog.NewTextHandler(&log, nil))
	other, err := inroot.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	unlock, err := other.Lock(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	err = a.Init(ctx, initOpts())
	if err == nil || !strings.Contains(err.Error(), "another nodeboot run") {
		t.Fatalf("Init while another run holds the lock = %v, want it to wait and then name the other run", err)
	}
	if !strings.Contains(log.String(), "waiting") {
		t.Errorf("the wait was not logged:\n%s", log.String())
	}
	if files := writtenFiles(t, root); len(files) > 1 { // the rejection note only
		t.Errorf("files written without the lock: %v", names(files))
	}
	unlock()
	if err := a.Init(t.Context(), initOpts()); err != nil {
		t.Fatalf("Init once the lock is free: %v", err)
	}
}

// TestRejectedConfigPhaseIsRecorded: a config phase that fails leaves a
// note saying why (the bootstrap.sh shim refuses to start the node then);
// the next config phase that succeeds removes it.
func TestRejectedConfigPhaseIsRecorded(t *testing.T) {
	// nodeboot.io documents stay strict at boot (node.eks.aws ones only warn).
	bad := []byte("apiVersion: nodeboot.io/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: x\n    nmae: typo\n")
	root := t.TempDir()
	a, md, _ := newTestAgent(t, root, bad, loadCase(t, "testdata/cases/minimal"))
	if _, err := a.Rejection(); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Rejection before any run = %v, want none", err)
	}
	err := a.Init(t.Context(), initOpts())
	if !errors.Is(err, diag.ErrInvalidConfig) {
		t.Fatalf("Init = %v, want ErrInvalidConfig", err)
	}
	reason, err := a.Rejection()
	if err != nil || !strings.Contains(reason, "spec.cluster.nmae") {
		t.Fatalf("Rejection = %q, %v; want the reason naming the field", reason, err)
	}
	files := writtenFiles(t, root)
	if len(files) != 1 || files[strings.TrimPrefix(RejectionPath, "/")] == nil {
		t.Errorf("files written on invalid input: %v, want only %s", names(files), RejectionPath)
	}

	md.userData = readCase(t, "minimal")
	if err := a.Init(t.Context(), initOpts()); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Rejection(); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Rejection after a good config phase = %v, want none", err)
	}
}

// TestOutpostsHostsWarningsAreLogged: a damaged nodeboot block in /etc/hosts
// is kept whole and reported, not silently truncated.
func TestOutpostsHostsWarningsAreLogged(t *testing.T) {
	root := t.TempDir()
	a, _, _ := newTestAgent(t, root, readCase(t, "outposts"), loadCase(t, "testdata/cases/outposts"))
	var log nodetest.SyncBuffer
	a.Log = slog.New(slog.NewTextHandler(&log, nil))
	hosts := "127.0.0.1 localhost\n# BEGIN nodeboot: API server pinned for Outposts (do not edit)\n192.168.0.7 db\n"
	if err := os.MkdirAll(filepath.Join(root, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc/hosts"), []byte(hosts), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := a.Init(t.Context(), initOpts()); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, "etc/hosts"))
	if err != nil || !strings.HasPrefix(string(got), hosts) {
		t.Fatalf("/etc/hosts lost lines:\n%s", got)
	}
	if !strings.Contains(log.String(), "/etc/hosts line 2") {
		t.Errorf("no warning about the damaged block:\n%s", log.String())
	}
}

// TestOutpostsPinningIsBounded: a resolver that never answers costs each
// attempt its timeout, and the run fails naming the host.
func TestOutpostsPinningIsBounded(t *testing.T) {
	root := t.TempDir()
	a, _, _ := newTestAgent(t, root, readCase(t, "outposts"), loadCase(t, "testdata/cases/outposts"))
	calls := 0
	a.LookupHost = func(ctx context.Context, host string) ([]string, error) {
		calls++
		<-ctx.Done() // a resolver that never answers
		return nil, ctx.Err()
	}
	a.pinLookupTimeout = 10 * time.Millisecond
	_, err := awstest.Within(t, func() (struct{}, error) { return struct{}{}, a.Init(t.Context(), initOpts()) })
	if err == nil || !strings.Contains(err.Error(), "resolve the Outposts API server") {
		t.Fatalf("error = %v, want the pinning to give up naming the host", err)
	}
	if calls != pinAttempts {
		t.Errorf("lookups = %d, want %d", calls, pinAttempts)
	}
}

// blockingCloud answers like fakeCloud but never answers
// DescribeInstanceTypes before the context ends.
type blockingCloud struct{ *fakeCloud }

func (c blockingCloud) InstanceTypeLimits(ctx context.Context, _ string) (hub.NetworkLimits, error) {
	<-ctx.Done()
	return hub.NetworkLimits{}, ctx.Err()
}

// TestNothingIsWrittenAfterTheDeadline: a lookup whose failure is only a
// warning (ENI limits fall back to a default) must not let the run go on to
// write files once the run's deadline has passed.
func TestNothingIsWrittenAfterTheDeadline(t *testing.T) {
	root := t.TempDir()
	a, _, cloud := newTestAgent(t, root, readCase(t, "unknown-instance-type"), loadCase(t, "testdata/cases/unknown-instance-type"))
	a.Cloud = func(context.Context, hub.InstanceStatus) (Cloud, error) { return blockingCloud{cloud}, nil }
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	err := a.Init(ctx, initOpts())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Init = %v, want the deadline", err)
	}
	if files := writtenFiles(t, root); len(files) != 1 || files[strings.TrimPrefix(RejectionPath, "/")] == nil {
		t.Errorf("files written after the deadline: %v", names(files))
	}
}
