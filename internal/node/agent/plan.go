package agent

import (
	"errors"
	"fmt"
	"slices"

	"github.com/nodeboot/nodeboot/internal/config/eni"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/maxpods"
	"github.com/nodeboot/nodeboot/internal/node/host"
	"github.com/nodeboot/nodeboot/internal/node/render"
	"github.com/nodeboot/nodeboot/internal/node/render/containerd"
	"github.com/nodeboot/nodeboot/internal/node/render/kubelet"
	"github.com/nodeboot/nodeboot/internal/node/render/system"
)

const nvidiaRuntimePath = host.NvidiaRuntimePath

// Scope selects which components a plan covers (init --daemon).
type Scope struct {
	Containerd, Kubelet bool
}

// AllDaemons is the default scope.
var AllDaemons = Scope{Containerd: true, Kubelet: true}

// Plan is everything the config phase writes and what must happen after.
type Plan struct {
	Files []render.File
	// Absent are managed paths that must not exist (no longer rendered).
	Absent   []string
	Actions  system.Actions
	MaxPods  maxpods.Result
	Reserved maxpods.Reserved
	// LocalStorage is how the run phase sets up instance-store disks.
	LocalStorage hub.LocalStorage
	// Warnings are problems found on the host while planning (a damaged
	// block in /etc/hosts), to be logged.
	Warnings []string
}

// Host facts the renderers need but the hub does not carry.
type HostInputs struct {
	// CredentialProviderBin is the installed ecr-credential-provider, or "".
	CredentialProviderBin string
	// EtcHosts is the current /etc/hosts (Outposts pinning edits it).
	EtcHosts []byte
	// Expressions evaluates kubelet.maxPodsExpression (Agent.Expressions).
	Expressions maxpods.Evaluator
}

// MakePlan renders every file for cfg. It is pure. When rendering fails,
// the error reports every component's problems, not the first one only.
func MakePlan(cfg hub.NodeConfig, hi HostInputs, scope Scope) (Plan, error) {
	mp := computeMaxPods(cfg, hi.Expressions)
	reserved := maxpods.KubeReserved(cfg.Status.Hardware.CPUs, cfg.Status.Hardware.MemoryMiB, maxpods.Effective(cfg.Spec, mp))
	p := Plan{MaxPods: mp, Reserved: reserved, LocalStorage: cfg.Spec.Instance.LocalStorage}
	var files []render.File
	files, p.Actions = system.Render(cfg)
	p.Files = append(p.Files, files...)
	p.Absent = absent([]string{system.ManagerEnvironmentPath, system.ResolvedDropInPath}, files)
	if hosts, warnings, ok := pinnedHosts(cfg, hi.EtcHosts); ok {
		p.Files = append(p.Files, hosts)
		p.Warnings = append(p.Warnings, warnings...)
	}
	var errs []error
	if scope.Containerd {
		files, err := containerd.Render(cfg, containerdInputs(cfg))
		if err != nil {
			errs = append(errs, fmt.Errorf("containerd config: %w", err))
		}
		p.Files = append(p.Files, files...)
		p.Absent = append(p.Absent, absent([]string{containerd.SOCIConfigPath, containerd.SOCIDropInPath}, files)...)
		if containerd.FastImagePullEnabled(cfg) {
			p.Actions.DaemonReload = true
		}
	}
	if scope.Kubelet {
		files, err := kubelet.Render(cfg, kubelet.Inputs{
			MaxPods:               mp.MaxPods,
			SetMaxPods:            cfg.Spec.MaxPods.Set == nil || *cfg.Spec.MaxPods.Set,
			KubeReserved:          reserved.Map(),
			CredentialProviderBin: hi.CredentialProviderBin,
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("kubelet config: %w", err))
		}
		p.Files = append(p.Files, files...)
		p.Absent = append(p.Absent, absent(kubelet.ManagedPaths(), files)...)
	}
	if len(errs) > 0 {
		return Plan{}, errors.Join(errs...)
	}
	return p, nil
}

// pinnedHosts renders /etc/hosts with the Outposts API server pinned, and
// what it found wrong in the existing file; it renders nothing when there
// is nothing to pin.
func pinnedHosts(cfg hub.NodeConfig, existing []byte) (render.File, []string, bool) {
	if len(cfg.Status.APIServerIPs) == 0 {
		return render.File{}, nil, false
	}
	host, err := apiServerHost(cfg.Spec.Cluster.APIServerEndpoint)
	if err != nil || host == "" {
		return render.File{}, nil, false
	}
	data, warnings := system.PinnedHosts(existing, host, cfg.Status.APIServerIPs)
	return render.File{Path: system.HostsPath, Mode: 0o644, Data: data}, warnings, true
}

func absent(managed []string, files []render.File) []string {
	var out []string
	for _, m := range managed {
		if !slices.ContainsFunc(files, func(f render.File) bool { return f.Path == m }) {
			out = append(out, m)
		}
	}
	return out
}

func containerdInputs(cfg hub.NodeConfig) containerd.Inputs {
	if cfg.Status.Hardware.NvidiaRuntime {
		return containerd.Inputs{RuntimeName: "nvidia", RuntimeBinary: nvidiaRuntimePath}
	}
	return containerd.Inputs{RuntimeName: "runc"}
}

// computeMaxPods derives maxPods from the user value, the expression or the
// ENI formula. A bad expression falls back to the formula (nodeadm parity)
// with a warning in the result; decoding already rejected it for check.
func computeMaxPods(cfg hub.NodeConfig, ev maxpods.Evaluator) maxpods.Result {
	nl := cfg.Status.NetworkLimits
	in := maxpods.SpecInput(cfg.Spec)
	in.Limits = eni.Limits{DefaultENIs: nl.DefaultENIs, IPv4PerENI: nl.IPv4PerENI, Hypervisor: nl.Hypervisor}
	in.Known = nl.DefaultENIs > 0 && nl.IPv4PerENI > 0
	in.VCPUs, in.Evaluator = cfg.Status.Hardware.CPUs, ev
	if l, ok := eni.Lookup(cfg.Status.Instance.Type); ok && nl.Source == "table" {
		in.Limits = l
	}
	res, err := maxpods.Compute(in)
	if err != nil {
		res.Warnings = append(res.Warnings, err.Error())
	}
	return res
}
