package localdisk

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
)

// maxRounds bounds Setup's probe-plan-execute rounds. A first boot needs
// one (create, format, mount, bind), a reboot at most three (assemble,
// mount, bind); one more confirms nothing is left.
const maxRounds = 4

// System is the machine Setup works on: Machine in production.
type System interface {
	// Probe reads the current state of the instance-store disks.
	Probe(ctx context.Context, opts Options) (State, error)
	// Execute runs one step.
	Execute(ctx context.Context, s Step) error
}

// Result is what Setup did.
type Result struct {
	// Ran are the steps run, as Describe renders them.
	Ran []string
	// Notes are what the plans left alone, and why.
	Notes []string
}

// Changed reports whether any step ran.
func (r Result) Changed() bool { return len(r.Ran) > 0 }

// Setup brings the instance-store disks to what opts asks for: it probes,
// plans and executes until a plan is empty (at most maxRounds rounds). A
// plan error (data nodeboot did not write, too few disks) stops it before
// anything of that round runs.
func Setup(ctx context.Context, opts Options, sys System, log *slog.Logger) (Result, error) {
	var res Result
	for round := 1; round <= maxRounds; round++ {
		st, err := sys.Probe(ctx, opts)
		if err != nil {
			return res, fmt.Errorf("local disks: %w", err)
		}
		plan, err := MakePlan(opts, st)
		if err != nil {
			return res, fmt.Errorf("local disks: %w", err)
		}
		for _, n := range plan.Notes {
			if !slices.Contains(res.Notes, n) {
				res.Notes = append(res.Notes, n)
				log.Info("local disks: " + n)
			}
		}
		if len(plan.Steps) == 0 {
			return res, nil
		}
		for _, s := range plan.Steps {
			log.Info("local disks", "run", Describe(s))
			if err := sys.Execute(ctx, s); err != nil {
				return res, fmt.Errorf("local disks: %s: %w", Describe(s), err)
			}
			res.Ran = append(res.Ran, Describe(s))
		}
	}
	return res, fmt.Errorf("%w after %d rounds", ErrNotConverged, maxRounds)
}
