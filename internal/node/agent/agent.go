package agent

import (
	"context"
	"log/slog"
	"time"

	"github.com/nodeboot/nodeboot/internal/config/maxpods"
	"github.com/nodeboot/nodeboot/internal/node/host"
	"github.com/nodeboot/nodeboot/internal/node/localdisk"
	"github.com/nodeboot/nodeboot/internal/node/service"
)

// Agent holds the effects one run uses. Every field but Log and Root may be
// nil when the run does not need it (config check needs neither cloud nor
// services).
type Agent struct {
	Log  *slog.Logger
	Root string
	// Metadata reads IMDS.
	Metadata Metadata
	// Cloud builds AWS API clients on first need.
	Cloud CloudFactory
	// Services builds the service manager for the run phase.
	Services func(ctx context.Context) (service.Manager, error)
	// Probe reads host facts under Root.
	Probe host.Probe
	// CredentialProviderBin is where the ecr-credential-provider binary is
	// looked for (under Root); empty means the AMI's default path.
	CredentialProviderBin string
	// LookupHost resolves the API server host for Outposts pinning; nil
	// means the system resolver.
	LookupHost func(ctx context.Context, host string) ([]string, error)
	// Setenv exports spec.instance.environment.default into the agent's own
	// environment before AWS calls, so proxies apply (nodeadm parity).
	Setenv func(key, value string) error
	// Strict keeps, when resolving the config (init, config dump), the
	// errors nodeadm does not make (diag.Problem.StrictOnly) as errors;
	// otherwise they are warnings and the node boots. config check is
	// always strict.
	Strict bool
	// DiskSystem sets up instance-store disks; nil means the real machine
	// under Root (localdisk.Machine).
	DiskSystem localdisk.System
	// Expressions checks and evaluates kubelet.maxPodsExpression: cel-go
	// in process or the nodeboot-cel helper, as the CLI's wiring chooses.
	// Without one a config with an expression is refused.
	Expressions maxpods.Evaluator

	// pinLookupTimeout bounds one resolution of the Outposts API server
	// host; 0 means 5 s (tests shorten it).
	pinLookupTimeout time.Duration
}
