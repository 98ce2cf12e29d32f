package doctor

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
	"github.com/nodeboot/nodeboot/internal/node/render/containerd"
)

// Accelerator facts.
const (
	pciDevices        = "/sys/bus/pci/devices"
	pciVendorNVIDIA   = "0x10de"
	nvidiaDriverFile  = "/proc/driver/nvidia/version"
	resourceNVIDIAGPU = "nvidia.com/gpu"
)

// neuronResources are the extended resources the Neuron device plugin
// advertises.
var neuronResources = []string{"aws.amazon.com/neuron", "aws.amazon.com/neuroncore", "aws.amazon.com/neurondevice"}

// AcceleratorEvidence is what the instance type promises and what the
// node has: devices, driver, container runtime, and what its Node
// advertises.
type AcceleratorEvidence struct {
	InstanceType string
	// NVIDIAGPUs and NeuronDevices are the type's (from EC2), -1 unknown.
	NVIDIAGPUs, NeuronDevices int
	// PCINVIDIA counts NVIDIA display controllers on the PCI bus.
	PCINVIDIA int
	// Driver is the NVIDIA driver's version line ("" when not loaded).
	Driver string
	// NeuronNodes are the /dev/neuron* device nodes.
	NeuronNodes []string
	// Runtimes are containerd's runtime names; CDI says whether it
	// injects devices with CDI.
	Runtimes []string
	CDI      bool
	// Node is the registered Node (nil when not registered).
	Node *kubeapi.Node
}

// gatherAccelerators reads the node's devices and containerd's runtimes.
func gatherAccelerators(f Files, instanceType string, cloud CloudEvidence) AcceleratorEvidence {
	ev := AcceleratorEvidence{InstanceType: instanceType, NVIDIAGPUs: -1, NeuronDevices: -1}
	if cloud.Err == nil && cloud.TypeErr == nil {
		ev.NVIDIAGPUs, ev.NeuronDevices = cloud.Type.NVIDIAGPUs, cloud.Type.NeuronDevices
	}
	ev.PCINVIDIA = countPCI(f, pciVendorNVIDIA, "0x03")
	if b, err := f.Read(nvidiaDriverFile); err == nil {
		ev.Driver = firstLine(string(b))
	}
	if entries, err := f.ReadDir("/dev"); err == nil {
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "neuron") {
				ev.NeuronNodes = append(ev.NeuronNodes, "/dev/"+e.Name())
			}
		}
	}
	if data, err := f.Read(containerd.ConfigPath); err == nil {
		ev.Runtimes, ev.CDI = containerdRuntimes(data)
	}
	return ev
}

// countPCI counts PCI devices of a vendor whose class starts with class.
func countPCI(f Files, vendor, class string) int {
	entries, err := f.ReadDir(pciDevices)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		v, err1 := f.Read(path.Join(pciDevices, e.Name(), "vendor"))
		c, err2 := f.Read(path.Join(pciDevices, e.Name(), "class"))
		if err1 == nil && err2 == nil && strings.TrimSpace(string(v)) == vendor && strings.HasPrefix(strings.TrimSpace(string(c)), class) {
			n++
		}
	}
	return n
}

// containerdRuntimes lists the CRI plugin's runtimes of a containerd
// config (version 2 or 3) and whether CDI is on.
func containerdRuntimes(data []byte) ([]string, bool) {
	var cfg map[string]any
	if toml.Unmarshal(data, &cfg) != nil {
		return nil, false
	}
	plugins, _ := cfg["plugins"].(map[string]any)
	var names []string
	cdi := false
	for _, name := range []string{"io.containerd.cri.v1.runtime", "io.containerd.grpc.v1.cri"} {
		p, ok := dig(plugins, name)
		if !ok {
			continue
		}
		if v, ok := p["enable_cdi"].(bool); ok && v {
			cdi = true
		}
		if rts, ok := dig(p, "containerd", "runtimes"); ok {
			for rt := range rts {
				names = append(names, rt)
			}
		}
	}
	slices.Sort(names)
	return names, cdi
}

// accelerated reports whether this node has, or should have, NVIDIA GPUs
// and Neuron devices.
func (ev AcceleratorEvidence) accelerated() (nvidia, neuron bool) {
	return ev.NVIDIAGPUs > 0 || ev.PCINVIDIA > 0, ev.NeuronDevices > 0 || len(ev.NeuronNodes) > 0
}

// acceleratorVerdict checks each accelerator the node has: driver,
// runtime, and the Node's extended resource.
func acceleratorVerdict(ev AcceleratorEvidence) Result {
	r := Result{ID: CheckAccelerators, Verdict: OK}
	nvidia, neuron := ev.accelerated()
	r.Evidence = append(r.Evidence, fmt.Sprintf("%s: %s NVIDIA GPU(s), %s Neuron device(s) (ec2:DescribeInstanceTypes); %d NVIDIA PCI device(s), Neuron device nodes %v",
		ev.InstanceType, count(ev.NVIDIAGPUs), count(ev.NeuronDevices), ev.PCINVIDIA, ev.NeuronNodes))
	if !nvidia && !neuron {
		r.Summary = fmt.Sprintf("%s has no GPU or Neuron device", orUnknown(ev.InstanceType))
		return r
	}
	var problems []Result
	if nvidia {
		problems = append(problems, nvidiaProblems(ev)...)
	}
	if neuron {
		problems = append(problems, neuronProblems(ev)...)
	}
	r.Evidence = append(r.Evidence, fmt.Sprintf("NVIDIA driver: %s; containerd runtimes %v, CDI %v", orNone(ev.Driver), ev.Runtimes, ev.CDI))
	if ev.Node == nil {
		r.Evidence = append(r.Evidence, "the Node's resources were not checked: it is not registered")
	}
	if len(problems) > 0 {
		r.Verdict, r.Summary, r.Action = Fail, problems[0].Summary, problems[0].Action
		return r
	}
	r.Summary = "the accelerators have their driver and runtime"
	if ev.Node != nil {
		r.Summary += " and the Node advertises them"
	}
	return r
}

func nvidiaProblems(ev AcceleratorEvidence) []Result {
	var out []Result
	switch {
	case ev.Driver == "":
		out = append(out, Result{Summary: "no NVIDIA driver is loaded (" + nvidiaDriverFile + " is absent) on a GPU instance",
			Action: "Use the EKS-optimized accelerated AMI (or Bottlerocket's NVIDIA variant), or install the NVIDIA driver and reboot."})
	case !slices.Contains(ev.Runtimes, "nvidia") && !ev.CDI:
		out = append(out, Result{Summary: "containerd has no nvidia runtime and no CDI: containers cannot use the GPUs",
			Action: "Run `nvidia-ctk runtime configure --runtime=containerd` (the NVIDIA container toolkit), then restart containerd."})
	case ev.Node != nil && !advertises(ev.Node, resourceNVIDIAGPU):
		out = append(out, Result{Summary: "the Node does not advertise " + resourceNVIDIAGPU + ": no NVIDIA device plugin runs on it",
			Action: "Install the NVIDIA device plugin DaemonSet (or the GPU operator) for this node's labels."})
	}
	return out
}

func neuronProblems(ev AcceleratorEvidence) []Result {
	var out []Result
	switch {
	case len(ev.NeuronNodes) == 0:
		out = append(out, Result{Summary: "no /dev/neuron* device on a Neuron instance: the Neuron driver is not loaded",
			Action: "Use the EKS-optimized Neuron AMI, or install aws-neuronx-dkms and reboot."})
	case ev.Node != nil && !slices.ContainsFunc(neuronResources, func(res string) bool { return advertises(ev.Node, res) }):
		out = append(out, Result{Summary: "the Node advertises no Neuron resource (" + strings.Join(neuronResources, ", ") + "): no Neuron device plugin runs on it",
			Action: "Install the Neuron device plugin DaemonSet for this node's labels."})
	}
	return out
}

func advertises(n *kubeapi.Node, resource string) bool {
	v, ok := n.Status.Allocatable[resource]
	return ok && v != "0"
}

func count(n int) string {
	if n < 0 {
		return "?"
	}
	return fmt.Sprint(n)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
