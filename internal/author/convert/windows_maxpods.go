package convert

import (
	"fmt"

	"github.com/nodeboot/nodeboot/internal/config/eni"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
	"github.com/nodeboot/nodeboot/internal/config/maxpods"
)

// windowsMaxPodsRule is how Windows nodes size max pods (legacy-formats.md
// §C): pods get secondary IPv4 addresses of the single primary ENI.
const windowsMaxPodsRule = "Windows max pods = IPv4 addresses per ENI - 1 (m5.large: 9), which Start-EKSBootstrap.ps1 applies by itself; set it per instance type with --max-pods in spec.kubelet.flags"

// instanceTypeLabels are the node labels that name the instance type,
// current one first.
var instanceTypeLabels = []string{"node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type"}

// windowsMaxPodsNote notes that kubelet maxPods, a Linux figure, is not
// passed to a Windows node, with the Windows rule and, when the node
// labels name an instance type the ENI table knows, its Windows figure.
func windowsMaxPodsNote(k hub.Kubelet, n *notes) {
	raw, ok := k.Config["maxPods"]
	if !ok || isJSONNull(raw) {
		return
	}
	msg := fmt.Sprintf("%s is a Linux max pods figure and is not passed; %s", clipBytes(raw), windowsMaxPodsRule)
	if typ, label, ok := labeledInstanceType(k.Flags); ok {
		if pods, known := windowsMaxPodsFor(typ); known {
			msg += fmt.Sprintf("; %s (node label %s) gets %d", typ, label, pods)
		} else {
			msg += fmt.Sprintf("; %s (node label %s) is not in nodeboot's ENI table", typ, label)
		}
	}
	n.add("spec.kubelet.config[maxPods]", "%s", msg)
}

// windowsMaxPodsFor returns the default max pods of a Windows node of
// instanceType, and false when the ENI table does not know the type.
func windowsMaxPodsFor(instanceType string) (int, bool) {
	limits, ok := eni.Lookup(instanceType)
	if !ok {
		return 0, false
	}
	return maxpods.WindowsMaxPods(limits), true
}

// labeledInstanceType returns the instance type named by an instance type
// label of the --node-labels flags (the last flag wins, as in the kubelet)
// and the label that named it.
func labeledInstanceType(flags []string) (instanceType, label string, ok bool) {
	for _, arg := range flags {
		f, isFlag := kubeletflag.Split(arg)
		if !isFlag || f.Name != "node-labels" {
			continue
		}
		labels, err := parsePairs(f.Value, "=")
		if err != nil {
			continue
		}
		for _, l := range instanceTypeLabels {
			if v := labels[l]; v != "" {
				instanceType, label, ok = v, l, true
				break
			}
		}
	}
	return instanceType, label, ok
}
