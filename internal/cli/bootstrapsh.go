package cli

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/legacy/bootstrapsh"
	"github.com/nodeboot/nodeboot/internal/node/agent"
)

// runBootstrapSh is the /etc/eks/bootstrap.sh entry point: the arguments
// (and, like bootstrap.sh, options left out but exported as variables such
// as KUBELET_EXTRA_ARGS) configure the node, which is then started.
func runBootstrapSh(ctx context.Context, inv Invocation, env Env, log *slog.Logger) error {
	src := diag.Source{URI: "bootstrap.sh arguments", Format: agent.FormatBootstrapSh}
	spec, problems := bootstrapsh.ParseArgsEnv(inv.Args, env.Environ(), src)
	for _, p := range problems {
		fmt.Fprintln(env.Stderr, p.String())
	}
	if problems.HasErrors() {
		return diag.ErrInvalidConfig
	}
	return newAgent(inv, env, log).Init(ctx, agent.InitOptions{
		CachePath:  inv.Cache,
		SkipConfig: inv.Skips(PhaseConfig),
		SkipRun:    inv.Skips(PhaseRun),
		Scope:      agent.AllDaemons,
		Extra:      []agent.Fragment{{Spec: spec, Source: src}},
	})
}
