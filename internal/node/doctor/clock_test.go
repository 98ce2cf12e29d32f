package doctor

import (
	"context"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/cmdrun"
)

// sampleAt is an answer whose Date is the local time plus offset.
func sampleAt(offset time.Duration) ClockSample {
	sent := time.Date(2026, 11, 22, 10, 0, 0, 200e6, time.UTC)
	return ClockSample{Reference: "API server", Sent: sent, Received: sent.Add(20 * time.Millisecond),
		Date: sent.Add(offset).Truncate(time.Second)}
}

func synced(tool string, v bool) SyncState {
	return SyncState{Tool: tool, Installed: true, Synced: &v, Detail: "leap status Normal"}
}

func TestClockVerdict(t *testing.T) {
	none := []SyncState{{Tool: "chronyc"}, {Tool: "timedatectl"}}
	checkVerdicts(t, CheckClock, []verdictCase{
		{name: "in step with the API server", got: clockVerdict(ClockEvidence{Sample: sampleAt(0), Sync: none}),
			verdict: OK, summary: []string{"of the API server"}, evidence: []string{"chronyc: not installed", "Date header"}},
		{name: "30 s behind", got: clockVerdict(ClockEvidence{Sample: sampleAt(30 * time.Second), Sync: none}),
			verdict: Warn, summary: []string{"behind the API server"}},
		{name: "10 minutes behind", got: clockVerdict(ClockEvidence{Sample: sampleAt(10 * time.Minute), Sync: none}),
			verdict: Fail, summary: []string{"10m", "behind"}},
		{name: "10 minutes ahead", got: clockVerdict(ClockEvidence{Sample: sampleAt(-10 * time.Minute), Sync: none}),
			verdict: Fail, summary: []string{"ahead of"}},
		{name: "in step but chrony unsynchronised", got: clockVerdict(ClockEvidence{Sample: sampleAt(0), Sync: []SyncState{synced("chronyc", false)}}),
			verdict: Warn, summary: []string{"not synchronised"}},
		{name: "no server answered, chrony synchronised", got: clockVerdict(ClockEvidence{Sync: []SyncState{synced("chronyc", true)}}),
			verdict: OK, summary: []string{"not measured", "synchronised"}},
		{name: "no server answered, timedatectl unsynchronised", got: clockVerdict(ClockEvidence{Sync: []SyncState{synced("timedatectl", false)}}),
			verdict: Warn, summary: []string{"not synchronised"}},
		{name: "nothing to check against", got: clockVerdict(ClockEvidence{Sync: none}),
			verdict: Warn, summary: []string{"could not be checked"}},
		{name: "fallback reference: the metadata service", got: clockVerdict(ClockEvidence{Sample: ClockSample{Reference: "instance metadata service",
			Sent: sampleAt(0).Sent, Received: sampleAt(0).Received, Date: sampleAt(0).Date}, Sync: none}),
			verdict: OK, summary: []string{"instance metadata service"}},
	})
}

func TestClockOffset(t *testing.T) {
	off, unc := sampleAt(0).Offset()
	if off < -time.Second || off > time.Second || unc != 510*time.Millisecond {
		t.Errorf("Offset() = %s ± %s", off, unc)
	}
}

// fakeRunner answers commands by name.
type fakeRunner map[string]cmdrun.Result

func (f fakeRunner) Run(_ context.Context, c cmdrun.Cmd) cmdrun.Result {
	if r, ok := f[c.Name]; ok {
		return r
	}
	return cmdrun.Result{ExitCode: -1, Err: notInstalled(c.Name)}
}

func notInstalled(name string) error { return &wrapped{name, cmdrun.ErrNotInstalled} }

type wrapped struct {
	name string
	err  error
}

func (w *wrapped) Error() string { return w.name + ": " + w.err.Error() }
func (w *wrapped) Unwrap() error { return w.err }

func TestSyncStates(t *testing.T) {
	chrony := `Reference ID    : A9FEA97B (169.254.169.123)
Stratum         : 4
System time     : 0.000012 seconds fast of NTP time
Leap status     : Normal
`
	states := syncStates(context.Background(), fakeRunner{
		"chronyc":     {Stdout: []byte(chrony)},
		"timedatectl": {Stdout: []byte("no\n")},
	})
	if len(states) != 2 || states[0].Synced == nil || !*states[0].Synced || states[1].Synced == nil || *states[1].Synced {
		t.Fatalf("states %+v", states)
	}
	if want := "reference id A9FEA97B (169.254.169.123); system time 0.000012 seconds fast of NTP time; leap status Normal"; states[0].Detail != want {
		t.Errorf("chrony detail %q, want %q", states[0].Detail, want)
	}
	unsynced := parseChrony(cmdrun.Result{Stdout: []byte("Leap status     : Not synchronised\n")})
	if unsynced.Synced == nil || *unsynced.Synced {
		t.Errorf("unsynchronised chrony read as %+v", unsynced)
	}
	if s := parseChrony(cmdrun.Result{ExitCode: 1, Stderr: []byte("506 Cannot talk to daemon")}); s.Synced != nil || s.Detail != "506 Cannot talk to daemon" {
		t.Errorf("failed chronyc read as %+v", s)
	}
	noSystemd := parseTimedatectl(cmdrun.Result{ExitCode: 1, Stderr: []byte("System has not been booted with systemd as init system (PID 1). Can't operate.\nFailed to connect to bus: Host is down\n")})
	if noSystemd.Synced != nil || noSystemd.Detail != "System has not been booted with systemd as init system (PID 1). Can't operate." {
		t.Errorf("timedatectl without systemd read as %+v", noSystemd)
	}
	if s := syncStates(context.Background(), fakeRunner{}); s[0].Installed || s[1].Installed {
		t.Errorf("missing tools read as %+v", s)
	}
}
