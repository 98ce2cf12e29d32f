package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/fragment"
	"github.com/nodeboot/nodeboot/internal/config/legacy/bootstrapsh"
	"github.com/nodeboot/nodeboot/internal/node/agent"
)

// errRejectedAtBoot is returned by bootstrap-sh when the config phase of
// this boot failed (agent.RejectionPath exists).
var errRejectedAtBoot = errors.New("the node configuration was rejected at boot by nodeboot's config phase")

// runBootstrapSh is the /etc/eks/bootstrap.sh entry point: the arguments
// (and, like bootstrap.sh, options left out but exported as variables such
// as KUBELET_EXTRA_ARGS) configure the node, which is then started.
//
// When the config phase rejected this boot's user data it refuses: the
// arguments alone would start a node without everything else the user
// data said (errRejectedAtBoot).
func runBootstrapSh(ctx context.Context, inv Invocation, env Env, log *slog.Logger) error {
	a := newAgent(inv, env, log)
	if reason, err := a.Rejection(); err == nil {
		return fmt.Errorf("%w:\n%s\nnot configuring the node from these bootstrap.sh arguments alone: that would drop the rest of the user data. "+
			"Fix the user data and reboot, or remove %s to configure from these arguments anyway", errRejectedAtBoot, strings.TrimSpace(reason), agent.RejectionPath)
	}
	src := diag.Source{URI: "bootstrap.sh arguments", Format: agent.FormatBootstrapSh}
	spec, problems := bootstrapsh.ParseArgsEnv(inv.Args, env.Environ(), src)
	problems = diag.Relax(problems) // what AL2 boots (a CIDR with host bits) boots, with a warning
	for _, p := range problems {
		fmt.Fprintln(env.Stderr, p.String())
	}
	if problems.HasErrors() {
		return diag.ErrInvalidConfig
	}
	return a.Init(ctx, agent.InitOptions{
		CachePath:  inv.Cache,
		SkipConfig: inv.Skips(PhaseConfig),
		SkipRun:    inv.Skips(PhaseRun),
		Scope:      agent.AllDaemons,
		Extra:      []agent.Fragment{{Spec: fragment.AL2Spec(spec), Source: src}},
	})
}
