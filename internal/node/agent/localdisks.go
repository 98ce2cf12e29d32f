package agent

import (
	"context"
	"fmt"
	"slices"

	"github.com/nodeboot/nodeboot/internal/node/apply"
	"github.com/nodeboot/nodeboot/internal/node/host"
	"github.com/nodeboot/nodeboot/internal/node/localdisk"
	"github.com/nodeboot/nodeboot/internal/node/service"
)

// setupLocalDisks sets up the instance-store disks (spec.instance.
// localStorage) before the daemons start. When it bind-mounted state
// directories, the files the config phase wrote there (the kubeconfig) are
// written again, since the mount covers them (apply leaves equal files
// alone). It returns the units it stopped that the run phase does not start
// itself; the caller restarts them.
func (a *Agent) setupLocalDisks(ctx context.Context, plan Plan, scope Scope, mgr service.Manager) ([]string, error) {
	ls := plan.LocalStorage
	if ls.Strategy == "" {
		return nil, nil
	}
	units, _ := mgr.(localdisk.Units)
	sys := a.DiskSystem
	var machine *localdisk.Machine
	if sys == nil {
		run := a.Probe.Run
		if run == nil {
			run = host.ExecRunner{}
		}
		machine = &localdisk.Machine{Root: a.Root, Run: run, Units: units}
		sys = machine
	}
	res, err := localdisk.Setup(ctx, localdisk.Options{Strategy: ls.Strategy, MountPath: ls.MountPath, DisabledMounts: ls.DisabledMounts}, sys, a.Log)
	if err != nil {
		return nil, err
	}
	if !res.Changed() {
		a.Log.Info("local disks already set up", "strategy", ls.Strategy)
		return nil, nil
	}
	if _, err := (apply.Writer{Root: a.Root}).Apply(plan.Files, plan.Absent); err != nil {
		return nil, fmt.Errorf("write files again over the new mounts: %w", err)
	}
	if machine == nil {
		return nil, nil
	}
	var restart []string
	for _, u := range machine.Stopped() {
		if !(u == "containerd.service" && scope.Containerd) && !(u == "kubelet.service" && scope.Kubelet) && !slices.Contains(restart, u) {
			restart = append(restart, u)
		}
	}
	return restart, nil
}
