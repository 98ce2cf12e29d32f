package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/inroot"
	"github.com/nodeboot/nodeboot/internal/node/apply"
	"github.com/nodeboot/nodeboot/internal/node/host"
	"github.com/nodeboot/nodeboot/internal/node/render/system"
	"github.com/nodeboot/nodeboot/internal/node/service"
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
//
// The config phase (reading, resolving, writing, saving the cache) holds the
// root's lock, so that two runs on one root never interleave their writes,
// and first puts back the files of a run that was killed while installing
// them. When the config phase was asked for and fails, the reason is kept
// at RejectionPath for the bootstrap.sh shim.
func (a *Agent) Init(ctx context.Context, o InitOptions) error {
	start := time.Now()
	plan, err := a.configPhase(ctx, o, start)
	if err != nil {
		if !o.SkipConfig {
			a.recordRejection(err)
		}
		return err
	}
	if !o.SkipRun {
		if err := a.run(ctx, plan, o.Scope); err != nil {
			return err
		}
	}
	a.Log.Info("done", "duration", time.Since(start).Round(time.Microsecond))
	return nil
}

// configPhase resolves the config and, when needed, writes the node's
// files, under the root's lock; it returns the plan the run phase starts.
func (a *Agent) configPhase(ctx context.Context, o InitOptions, start time.Time) (Plan, error) {
	unlock, err := a.lock(ctx)
	if err != nil {
		return Plan{}, err
	}
	defer unlock()
	res, err := a.Resolve(ctx, o.Sources, o.CachePath, o.Extra...)
	if err != nil {
		return Plan{}, err
	}
	a.Log.Info("config resolved", "fromCache", res.FromCache, "duration", time.Since(start).Round(time.Microsecond))
	hi, err := a.hostInputs(res.Config)
	if err != nil {
		return Plan{}, err
	}
	plan, err := MakePlan(res.Config, hi, o.Scope)
	if err != nil {
		// What only rendering finds (a containerd.config the installed
		// containerd cannot read) names the sources the user fixes.
		return Plan{}, fmt.Errorf("config from %s: %w", strings.Join(o.Sources, ", "), err)
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
		// A lookup whose failure is only a warning may have run into the
		// deadline: past it, nothing is written.
		if err := ctx.Err(); err != nil {
			return Plan{}, fmt.Errorf("not writing the node's files: %w", err)
		}
		if err := a.configure(ctx, plan, res, o.CachePath); err != nil {
			return Plan{}, err
		}
		a.Log.Info("files written", "maxPods", plan.MaxPods.MaxPods, "maxPodsSource", plan.MaxPods.Source,
			"kubeReservedMemory", plan.Reserved.Memory, "duration", time.Since(start).Round(time.Microsecond))
	}
	if !o.SkipConfig {
		a.clearRejection()
	}
	return plan, nil
}

// lock takes the root's lock, waiting while another run holds it, and puts
// back the files of an earlier run that was killed while installing them.
func (a *Agent) lock(ctx context.Context) (func(), error) {
	root, err := inroot.Open(a.Root)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	unlock, err := root.Lock(ctx, func() {
		a.Log.Info("another nodeboot run holds the lock on the root; waiting for it", "root", root.Path())
	})
	if err != nil {
		return nil, err
	}
	restored, err := apply.Recover(a.Root)
	if err != nil {
		unlock()
		return nil, err
	}
	if len(restored) > 0 {
		a.Log.Warn("an earlier run was stopped while installing files; put the previous ones back", "paths", restored)
	}
	return unlock, nil
}

// maxHostsSize bounds the /etc/hosts read for Outposts pinning.
const maxHostsSize = 1 << 20

func (a *Agent) hostInputs(cfg hub.NodeConfig) (HostInputs, error) {
	hi := HostInputs{Expressions: a.Expressions}
	bin := a.CredentialProviderBin
	if bin == "" {
		bin = host.CredentialProviderBin
	}
	if len(cfg.Status.APIServerIPs) > 0 { // only Outposts pinning edits /etc/hosts
		// The file is rewritten from what is read: a read that fails must
		// stop the run rather than lose the file's other lines.
		b, err := a.readFile(system.HostsPath, maxHostsSize)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return HostInputs{}, fmt.Errorf("read %s to pin the Outposts API server: %w", system.HostsPath, err)
		}
		hi.EtcHosts = b
	}
	if a.Probe.Exists(bin) {
		hi.CredentialProviderBin = bin
	} else {
		a.Log.Warn("no image credential provider installed; the kubelet cannot pull from private ECR registries", "path", bin)
	}
	return hi, nil
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

// run marks the run phase as started, sets up the instance-store disks,
// then restarts the daemons in order. It connects to the service manager
// only when there is something to start or disks to set up; without one it
// can still set up disks when no daemon is in scope (init --daemon "").
func (a *Agent) run(ctx context.Context, plan Plan, scope Scope) error {
	daemons := scope.Containerd || scope.Kubelet
	var mgr service.Manager
	switch {
	case a.Services != nil && (daemons || plan.LocalStorage.Strategy != ""):
		var err error
		if mgr, err = a.Services(ctx); err != nil {
			return fmt.Errorf("run phase: %w", err)
		}
	case daemons && a.Services == nil:
		return ErrNoServiceManager
	}
	if err := a.markRunStarted(); err != nil {
		return err
	}
	restart, err := a.setupLocalDisks(ctx, plan, scope, mgr)
	if err != nil {
		return err
	}
	for _, unit := range restart {
		if err := mgr.Restart(ctx, unit); err != nil {
			return err
		}
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
