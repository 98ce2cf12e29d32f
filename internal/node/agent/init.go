package agent

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/node/apply"
	"github.com/nodeboot/nodeboot/internal/node/host"
	"github.com/nodeboot/nodeboot/internal/node/render/system"
)

// InitOptions are the `nodeboot init` settings.
type InitOptions struct {
	Sources    []string
	CachePath  string
	SkipConfig bool
	SkipRun    bool
	Scope      Scope
	// Extra fragments merge after the sources (bootstrap.sh arguments).
	Extra []Fragment
}

// Init configures the node and (unless skipped) starts its daemons.
func (a *Agent) Init(ctx context.Context, o InitOptions) error {
	start := time.Now()
	res, err := a.Resolve(ctx, o.Sources, o.CachePath, o.Extra...)
	if err != nil {
		return err
	}
	a.Log.Info("config resolved", "fromCache", res.FromCache, "duration", time.Since(start).Round(time.Microsecond))
	plan, err := MakePlan(res.Config, a.hostInputs(res.Config), o.Scope)
	if err != nil {
		return err
	}
	for _, w := range plan.MaxPods.Warnings {
		a.Log.Warn("max pods: " + w)
	}
	for _, w := range plan.Warnings {
		a.Log.Warn(w)
	}
	configure := !o.SkipConfig || res.Changed
	if o.SkipConfig && res.Changed {
		a.Log.Info("config changed since the config phase (new drop-ins?); configuring again")
	}
	if configure {
		if err := a.configure(ctx, plan, res, o.CachePath); err != nil {
			return err
		}
		a.Log.Info("files written", "maxPods", plan.MaxPods.MaxPods, "maxPodsSource", plan.MaxPods.Source,
			"kubeReservedMemory", plan.Reserved.Memory, "duration", time.Since(start).Round(time.Microsecond))
	}
	if !o.SkipRun {
		if err := a.run(ctx, plan, o.Scope); err != nil {
			return err
		}
	}
	a.Log.Info("done", "duration", time.Since(start).Round(time.Microsecond))
	return nil
}

// maxHostsSize bounds the /etc/hosts read for Outposts pinning.
const maxHostsSize = 1 << 20

func (a *Agent) hostInputs(cfg hub.NodeConfig) HostInputs {
	var hi HostInputs
	bin := a.CredentialProviderBin
	if bin == "" {
		bin = host.CredentialProviderBin
	}
	if len(cfg.Status.APIServerIPs) > 0 { // only Outposts pinning edits /etc/hosts
		hi.EtcHosts, _ = a.readFile(system.HostsPath, maxHostsSize)
	}
	if a.Probe.Exists(bin) {
		hi.CredentialProviderBin = bin
	} else {
		a.Log.Warn("no image credential provider installed; the kubelet cannot pull from private ECR registries", "path", bin)
	}
	return hi
}

func (a *Agent) configure(ctx context.Context, plan Plan, res Resolution, cachePath string) error {
	result, err := apply.Writer{Root: a.Root}.Apply(plan.Files, plan.Absent)
	if err != nil {
		return fmt.Errorf("write files: %w", err)
	}
	if err := a.systemActions(ctx, plan.Actions, result); err != nil {
		return err
	}
	for _, p := range result.Written {
		a.Log.Debug("wrote", "path", p)
	}
	for _, p := range result.Removed {
		a.Log.Info("removed file no longer rendered", "path", p)
	}
	if err := a.saveCache(cachePath, res.UserSpec, res.Config); err != nil {
		a.Log.Warn("could not save the config cache", "path", cachePath, "error", err)
	}
	return nil
}

// systemActions makes systemd pick up the drop-ins just written, in the
// config phase itself (like nodeadm's aspects), so that a later run phase
// started with --skip config finds them loaded. Nothing is done when no
// such file changed, or when there is no service manager (--root other
// than /, where the host's systemd is not the target's).
func (a *Agent) systemActions(ctx context.Context, act system.Actions, written apply.Result) error {
	if !written.Changed() {
		return nil
	}
	for _, p := range written.Removed { // a removed drop-in must be unloaded too
		act.DaemonReload = act.DaemonReload || strings.HasPrefix(p, "/etc/systemd/")
		act.RestartResolved = act.RestartResolved || p == system.ResolvedDropInPath
	}
	if !act.DaemonReload && !act.RestartResolved {
		return nil
	}
	if a.Services == nil {
		a.Log.Warn("systemd drop-ins written but no service manager to reload them (not --root /)")
		return nil
	}
	mgr, err := a.Services(ctx)
	if err != nil {
		return fmt.Errorf("reload systemd after writing drop-ins: %w", err)
	}
	if act.DaemonReload {
		if err := mgr.DaemonReload(ctx); err != nil {
			return err
		}
	}
	if act.RestartResolved {
		return mgr.Restart(ctx, "systemd-resolved.service")
	}
	return nil
}

// run restarts the daemons in order.
func (a *Agent) run(ctx context.Context, plan Plan, scope Scope) error {
	if a.Services == nil {
		return ErrNoServiceManager
	}
	mgr, err := a.Services(ctx)
	if err != nil {
		return fmt.Errorf("run phase: %w", err)
	}
	if ls := plan.LocalStorage; ls != "" {
		a.Log.Warn("instance.localStorage is validated but not set up by this version; disks are left as they are", "strategy", ls)
	}
	for _, d := range []struct {
		on   bool
		unit string
	}{{scope.Containerd, "containerd.service"}, {scope.Kubelet, "kubelet.service"}} {
		if !d.on {
			continue
		}
		t := time.Now()
		if err := mgr.Restart(ctx, d.unit); err != nil {
			return err
		}
		a.Log.Info("started", "unit", d.unit, "duration", time.Since(t).Round(time.Millisecond))
	}
	return nil
}
