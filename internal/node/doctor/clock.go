package doctor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/cmdrun"
)

// Clock bounds. Certificates the cluster signs are backdated by 5 minutes
// (kube-controller-manager's signer), and AWS rejects signed requests,
// the EKS token among them, 5 minutes off (SigV4 allows 15 for STS; the
// lower bound matters first).
const (
	clockFailOffset = 5 * time.Minute
	clockWarnOffset = 10 * time.Second
	syncCmdBound    = 5 * time.Second
)

// ClockSample is one HTTP answer's Date header and when the request was
// sent and answered on the local clock.
type ClockSample struct {
	// Reference names the server ("API server", "instance metadata service").
	Reference            string
	Date, Sent, Received time.Time
}

// Valid reports whether the sample has a Date.
func (s ClockSample) Valid() bool { return !s.Date.IsZero() && !s.Sent.IsZero() }

// Offset returns the server's clock minus the local clock, and how far
// off that estimate may be: Date has whole seconds (the server's time is
// in [Date, Date+1s)) and the answer was made somewhere in [Sent, Received].
func (s ClockSample) Offset() (offset, uncertainty time.Duration) {
	rtt := s.Received.Sub(s.Sent)
	mid := s.Sent.Add(rtt / 2)
	return s.Date.Add(500 * time.Millisecond).Sub(mid), 500*time.Millisecond + rtt/2
}

// SyncState is what a time synchronisation tool says.
type SyncState struct {
	Tool      string
	Installed bool
	// Synced is nil when the tool's answer could not be read.
	Synced *bool
	Detail string
}

// ClockEvidence is the clock offset against a server and the local
// synchronisation state.
type ClockEvidence struct {
	// Sample is the API server's answer when there is one, else IMDS's.
	Sample ClockSample
	Sync   []SyncState
}

// syncStates asks chronyc, then timedatectl, whether the clock is
// synchronised.
func syncStates(ctx context.Context, run cmdrun.Runner) []SyncState {
	var out []SyncState
	chrony := run.Run(ctx, cmdrun.Cmd{Name: "chronyc", Args: []string{"-n", "tracking"}, Timeout: syncCmdBound})
	out = append(out, parseChrony(chrony))
	timedatectl := run.Run(ctx, cmdrun.Cmd{Name: "timedatectl", Args: []string{"show", "-p", "NTPSynchronized", "--value"}, Timeout: syncCmdBound})
	out = append(out, parseTimedatectl(timedatectl))
	return out
}

func parseChrony(res cmdrun.Result) SyncState {
	s := SyncState{Tool: "chronyc", Installed: !isNotInstalled(res)}
	if !s.Installed {
		return s
	}
	if res.Err != nil || res.ExitCode != 0 {
		s.Detail = firstLine(firstNonEmpty(string(res.Stderr), fmt.Sprint(res.Err), fmt.Sprintf("exit code %d", res.ExitCode)))
		return s
	}
	var details []string
	for _, line := range strings.Split(string(res.Stdout), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "Leap status":
			synced := strings.TrimSpace(v) != "Not synchronised"
			s.Synced = &synced
			details = append(details, "leap status "+strings.TrimSpace(v))
		case "System time", "Reference ID":
			details = append(details, strings.ToLower(strings.TrimSpace(k))+" "+strings.TrimSpace(v))
		}
	}
	s.Detail = strings.Join(details, "; ")
	return s
}

func parseTimedatectl(res cmdrun.Result) SyncState {
	s := SyncState{Tool: "timedatectl", Installed: !isNotInstalled(res)}
	if !s.Installed {
		return s
	}
	switch v := strings.TrimSpace(string(res.Stdout)); {
	case res.Err == nil && res.ExitCode == 0 && (v == "yes" || v == "no"):
		synced := v == "yes"
		s.Synced, s.Detail = &synced, "NTPSynchronized="+v
	default:
		s.Detail = firstLine(firstNonEmpty(string(res.Stderr), fmt.Sprint(res.Err), "unreadable answer "+v))
	}
	return s
}

// firstLine is the first non-blank line of s, trimmed.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

func isNotInstalled(res cmdrun.Result) bool {
	return res.Err != nil && strings.Contains(res.Err.Error(), cmdrun.ErrNotInstalled.Error())
}

// clockVerdict judges the offset and the synchronisation state.
func clockVerdict(ev ClockEvidence) Result {
	r := Result{ID: CheckClock}
	var synced, unsynced []string
	r.Evidence, synced, unsynced = syncEvidence(ev.Sync)
	if !ev.Sample.Valid() {
		return unmeasuredClock(r, synced, unsynced)
	}
	return measuredClock(r, ev.Sample, unsynced)
}

// syncEvidence describes each tool's state and lists the tools that say
// the clock is synchronised, and those that say it is not.
func syncEvidence(states []SyncState) (evidence, synced, unsynced []string) {
	for _, s := range states {
		switch {
		case !s.Installed:
			evidence = append(evidence, s.Tool+": not installed")
		case s.Synced == nil:
			evidence = append(evidence, s.Tool+": state unknown: "+s.Detail)
		case *s.Synced:
			synced = append(synced, s.Tool)
			evidence = append(evidence, s.Tool+": synchronised ("+s.Detail+")")
		default:
			unsynced = append(unsynced, s.Tool)
			evidence = append(evidence, s.Tool+": NOT synchronised ("+s.Detail+")")
		}
	}
	return evidence, synced, unsynced
}

// unmeasuredClock judges by the tools alone: no trusted server answered.
func unmeasuredClock(r Result, synced, unsynced []string) Result {
	switch {
	case len(unsynced) > 0:
		r.Verdict, r.Summary = Warn, "offset not measured (no trusted server answered); "+strings.Join(unsynced, ", ")+" says the clock is not synchronised"
		r.Action = "Let chronyd synchronise (chronyc makestep) and check that it can reach its time source (169.254.169.123 on EC2)."
	case len(synced) > 0:
		r.Verdict, r.Summary = OK, "offset not measured (no trusted server answered); "+strings.Join(synced, ", ")+" says the clock is synchronised"
	default:
		r.Verdict, r.Summary = Warn, "the clock could not be checked: no trusted server answered and no time synchronisation tool is installed"
		r.Action = "Install and enable chrony (the Amazon Time Sync Service is 169.254.169.123) so certificates and tokens are judged at the right time."
	}
	return r
}

// measuredClock judges the offset against the reference's Date.
func measuredClock(r Result, sample ClockSample, unsynced []string) Result {
	offset, uncertainty := sample.Offset()
	abs := offset
	if abs < 0 {
		abs = -abs
	}
	direction := "ahead of"
	if offset > 0 {
		direction = "behind"
	}
	measured := fmt.Sprintf("%s %s the %s (±%s, from its Date header)", ms(abs), direction, sample.Reference, ms(uncertainty))
	r.Evidence = append([]string{"local clock " + measured}, r.Evidence...)
	switch {
	case abs-uncertainty >= clockFailOffset:
		r.Verdict, r.Summary = Fail, "the local clock is "+measured
		r.Action = "Fix the clock (chronyc makestep, or enable chronyd with 169.254.169.123): certificates look not yet valid or expired and AWS rejects signed requests at this offset."
	case abs-uncertainty > clockWarnOffset:
		r.Verdict, r.Summary = Warn, "the local clock is "+measured
		r.Action = "Let chronyd synchronise the clock before the offset grows enough to break certificates and tokens."
	case len(unsynced) > 0:
		r.Verdict, r.Summary = Warn, "offset "+ms(abs)+" but "+strings.Join(unsynced, ", ")+" says the clock is not synchronised"
		r.Action = "Check that chronyd reaches its time source (169.254.169.123 on EC2)."
	default:
		r.Verdict, r.Summary = OK, fmt.Sprintf("within %s of the %s", ms(abs+uncertainty), sample.Reference)
	}
	return r
}
