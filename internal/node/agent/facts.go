package agent

import (
	"context"
	"sync"

	"github.com/nodeboot/nodeboot/internal/aws/imds"
	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// facts are looked up while the config is being read: the instance
// identity from IMDS and the host's hardware and versions. None of them
// depends on the config, so they run in parallel with it and each other.
type facts struct {
	wg sync.WaitGroup

	instance    hub.InstanceStatus
	instanceErr error

	hardware          hub.Hardware
	hardwareErr       error
	kubeletVersion    string
	kubeletErr        error
	containerdVersion string
	containerdErr     error
}

// startFacts starts the lookups; wait() returns when all are done.
func (a *Agent) startFacts(ctx context.Context) *facts {
	f := &facts{}
	if a.Metadata != nil {
		f.wg.Go(func() { f.instance, f.instanceErr = a.Metadata.Instance(ctx, imds.Want{}) })
	}
	f.wg.Go(func() { f.kubeletVersion, f.kubeletErr = a.Probe.KubeletVersion(ctx) })
	f.wg.Go(func() { f.containerdVersion, f.containerdErr = a.Probe.ContainerdVersion(ctx) })
	f.wg.Go(func() { f.hardware, f.hardwareErr = a.hardware() })
	return f
}

func (f *facts) wait() *facts {
	f.wg.Wait()
	return f
}

func (a *Agent) hardware() (hub.Hardware, error) {
	cpus, err := a.Probe.CPUs()
	if err != nil {
		return hub.Hardware{}, err
	}
	mem, err := a.Probe.MemoryMiB()
	if err != nil {
		return hub.Hardware{}, err
	}
	return hub.Hardware{
		CPUs:          cpus,
		MemoryMiB:     mem,
		NvidiaGPU:     a.Probe.NvidiaGPU(),
		NvidiaRuntime: a.Probe.Exists(nvidiaRuntimePath),
	}, nil
}
