package cli

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/nodeboot/nodeboot/internal/aws/imds"
	"github.com/nodeboot/nodeboot/internal/node/host"
	"github.com/nodeboot/nodeboot/internal/node/netmanager"
)

// Internal commands: helpers for the packaged units (nodeadm-internal's
// counterparts). They are not a stable interface.
const (
	CmdBootHook       = "internal boot-hook"
	CmdUdevNetManager = "internal udev-net-manager"
)

// internalUsage lists the internal commands.
const internalUsage = `Internal commands (run by the packaged units; no stability guarantee):
  nodeboot internal boot-hook [--root DIR]
  nodeboot internal udev-net-manager -a|--action add|remove -i|--interface NAME [--root DIR]
`

func parseInternal(args []string) (Invocation, error) {
	if len(args) == 0 {
		return Invocation{}, fmt.Errorf("%w: internal needs a subcommand: boot-hook or udev-net-manager", ErrUsage)
	}
	inv := Invocation{}
	fs := newFlagSet("internal " + args[0])
	switch args[0] {
	case "boot-hook":
		inv.Command = CmdBootHook
	case "udev-net-manager":
		inv.Command = CmdUdevNetManager
		fs.StringVarP(&inv.Action, "action", "a", "", "the udev action: add or remove")
		fs.StringVarP(&inv.Interface, "interface", "i", "", "the network interface")
	default:
		return inv, fmt.Errorf("%w: unknown internal subcommand %q (want boot-hook or udev-net-manager)", ErrUsage, args[0])
	}
	fs.StringVar(&inv.Root, "root", "/", "directory every path is taken under")
	fs.BoolVarP(&inv.Verbose, "verbose", "v", false, "debug logging")
	if err := fs.Parse(args[1:]); err != nil {
		return inv, fmt.Errorf("%w: %s %v", ErrUsage, fs.Name(), err)
	}
	if fs.NArg() > 0 {
		return inv, fmt.Errorf("%w: %s takes no arguments, got %q", ErrUsage, fs.Name(), fs.Args())
	}
	if inv.Command == CmdUdevNetManager {
		if inv.Action != "add" && inv.Action != "remove" {
			return inv, fmt.Errorf("%w: --action %q: want add or remove", ErrUsage, inv.Action)
		}
		if inv.Interface == "" {
			return inv, fmt.Errorf("%w: --interface is required", ErrUsage)
		}
	}
	return inv, nil
}

// runInternal runs an internal command.
func runInternal(ctx context.Context, inv Invocation, log *slog.Logger) error {
	h := netmanager.Helper{Root: inv.Root, Metadata: imds.New(imds.Options{}), Run: host.ExecRunner{}, Log: log}
	switch {
	case inv.Command == CmdBootHook:
		return h.BootHook(ctx)
	case inv.Action == "add":
		return h.UdevAdd(ctx, inv.Interface)
	default:
		return h.UdevRemove(ctx, inv.Interface)
	}
}
