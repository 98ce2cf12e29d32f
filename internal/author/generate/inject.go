package generate

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	v1alpha1 "github.com/nodeboot/nodeboot/api/nodegroup/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/author/nodegroup"
	"github.com/nodeboot/nodeboot/internal/config/clusterdns"
	"github.com/nodeboot/nodeboot/internal/config/eni"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/maxpods"
)

// Labels the producers write.
const (
	LabelEKSNodegroup      = "eks.amazonaws.com/nodegroup"
	LabelEKSImage          = "eks.amazonaws.com/nodegroup-image"
	LabelEKSCapacityType   = "eks.amazonaws.com/capacityType"
	LabelEKSLaunchTemplate = "eks.amazonaws.com/sourceLaunchTemplateId"
	LabelEKSLaunchVersion  = "eks.amazonaws.com/sourceLaunchTemplateVersion"
	LabelEksctlCluster     = "alpha.eksctl.io/cluster-name"
	LabelEksctlNodegroup   = "alpha.eksctl.io/nodegroup-name"
	LabelEksctlInstanceID  = "alpha.eksctl.io/instance-id"
	LabelEksctlLifecycle   = "node-lifecycle"
	LabelKarpenterNodePool = "karpenter.sh/nodepool"
	LabelKarpenterCapacity = "karpenter.sh/capacity-type"
	// TaintKarpenterUnregistered is on every node Karpenter launches until
	// it registers.
	TaintKarpenterUnregistered = "karpenter.sh/unregistered"
)

// karpenterDefaultWindowsMaxPods is what Karpenter gives Windows nodes,
// which have no ENI-limited pod density in its model.
const karpenterDefaultWindowsMaxPods = 110

// label is one node label in writing order.
type label struct{ key, value string }

// injection is what a producer writes into its part for a node group.
type injection struct {
	producer Producer
	family   Family
	spec     v1alpha1.NodeGroupSpec
	cluster  hub.Cluster
	// dns is the cluster DNS address from the service CIDR; "" when
	// there is no CIDR.
	dns     string
	labels  []label
	taints  []v1alpha1.Taint
	maxPods int32
	notes   notes
}

// notes collects what the output leaves out or places elsewhere.
type notes []string

func (n *notes) add(format string, args ...any) { *n = append(*n, fmt.Sprintf(format, args...)) }

// inject works out what the producer writes for the group.
func inject(g v1alpha1.NodeGroup, f Family, p Producer) injection {
	spec := g.Spec
	in := injection{producer: p, family: f, spec: spec, cluster: nodegroup.Hub(spec).Cluster}
	if spec.Cluster.CIDR != "" {
		if dns, err := clusterdns.Address(spec.Cluster.CIDR, nil); err == nil {
			in.dns = dns
		}
	}
	if spec.Cluster.APIServerEndpoint == "" || len(spec.Cluster.CertificateAuthority) == 0 {
		in.notes.add("spec.cluster: without the API server endpoint and CA the user data leaves them out; %s always writes them, and nodeboot (or bootstrap.sh, Start-EKSBootstrap.ps1) looks them up with eks:DescribeCluster at boot", p.Name())
	}
	in.labels = producerLabels(g, p, &in.notes)
	in.taints = append([]v1alpha1.Taint(nil), spec.Taints...)
	if p == ProducerKarpenter {
		in.taints = append(in.taints, v1alpha1.Taint{Key: TaintKarpenterUnregistered, Effect: v1alpha1.EffectNoExecute})
	}
	in.maxPods = resolveMaxPods(spec, f, p, &in.notes)
	return in
}

// producerLabels returns the producer's labels and the group's, in the
// order the producer writes them; a group label the producer also writes
// is dropped (the producer's wins) with a note.
func producerLabels(g v1alpha1.NodeGroup, p Producer, n *notes) []label {
	spec := g.Spec
	capacity := nodegroup.CapacityType(spec)
	lower := strings.ToLower(strings.ReplaceAll(capacity, "_", "-"))
	var own []label
	switch p {
	case ProducerEKS:
		if spec.ImageID != "" {
			own = append(own, label{LabelEKSImage, spec.ImageID})
		} else {
			n.add("spec.imageId is not set: EKS labels every node with %s=<the AMI ID>; it is left out", LabelEKSImage)
		}
		own = append(own, label{LabelEKSCapacityType, capacity}, label{LabelEKSNodegroup, g.Metadata.Name})
		if lt := spec.LaunchTemplate; lt != nil {
			own = append(own, label{LabelEKSLaunchTemplate, lt.ID}, label{LabelEKSLaunchVersion, lt.Version})
		}
	case ProducerEksctl:
		own = append(own, label{LabelEksctlCluster, spec.Cluster.Name}, label{LabelEksctlNodegroup, g.Metadata.Name})
	case ProducerKarpenter:
		own = append(own, label{LabelKarpenterNodePool, g.Metadata.Name}, label{LabelKarpenterCapacity, lower})
	}
	taken := map[string]bool{}
	for _, l := range own {
		taken[l.key] = true
	}
	user := make([]label, 0, len(spec.Labels))
	for _, k := range slices.Sorted(maps.Keys(spec.Labels)) {
		if taken[k] {
			n.add("spec.labels[%s]: %s writes this label itself; its value wins", k, p.Name())
			continue
		}
		user = append(user, label{k, spec.Labels[k]})
	}
	switch p {
	case ProducerEKS:
		return append(own, user...)
	case ProducerEksctl:
		// eksctl adds its labels to the group's label map.
		all := append(user, own...)
		slices.SortFunc(all, func(a, b label) int { return strings.Compare(a.key, b.key) })
		return all
	}
	// Karpenter sorts every label by key.
	all := append(own, user...)
	slices.SortFunc(all, func(a, b label) int { return strings.Compare(a.key, b.key) })
	return all
}

// maxPodsByProducer says where each producer's max pods come from.
var maxPodsByProducer = map[Producer]string{
	ProducerEKS:       "EKS writes them for the node group's instance type",
	ProducerEksctl:    "eksctl writes them only from maxPodsPerNode (spec.maxPods.value)",
	ProducerKarpenter: "Karpenter writes them for each instance's type",
}

// resolveMaxPods returns the max pods the producer writes, 0 for none.
func resolveMaxPods(spec v1alpha1.NodeGroupSpec, f Family, p Producer, n *notes) int32 {
	m := spec.MaxPods
	if m.Value > 0 {
		return m.Value
	}
	if f == FamilyWindows {
		if p == ProducerKarpenter {
			return karpenterDefaultWindowsMaxPods
		}
		n.add("max pods: Windows nodes size max pods by their own rule (IPv4 addresses per ENI - 1); set spec.maxPods.value to pass --max-pods")
		return 0
	}
	if p == ProducerEksctl {
		return eksctlMaxPods(m, n)
	}
	if spec.InstanceType == "" {
		n.add("max pods: spec.instanceType is not set, so the user data leaves max pods to the node; %s", maxPodsByProducer[p])
		return 0
	}
	limits, ok := eni.Lookup(spec.InstanceType)
	if !ok {
		n.add("max pods: %s is not in the ENI table, so max pods are left to the node", spec.InstanceType)
		return 0
	}
	res, _ := maxpods.Compute(maxpods.Input{Limits: limits, Known: true, Policy: maxpods.Policy{
		PrefixDelegation: m.PrefixDelegation, CustomNetworking: m.CustomNetworking, Cap: m.Cap, MaxENIs: m.MaxENIs,
	}})
	for _, w := range res.Warnings {
		n.add("max pods: %s", w)
	}
	if m.Cap && res.MaxPods < int32(maxpods.Standard(limits)) && res.MaxPods == maxpods.DefaultMaxPods {
		n.add("max pods: capped at %d; EKS caps instance types with more than 30 vCPUs at 250 instead, and nodeboot's ENI table has no vCPU counts: set spec.maxPods.value for those", res.MaxPods)
	}
	return res.MaxPods
}

// eksctlMaxPods is what eksctl writes: maxPodsPerNode (spec.maxPods.value)
// or nothing, the node then sizing max pods for its instance type
// (bootstrap.sh, nodeadm, Bottlerocket, Start-EKSBootstrap.ps1). eksctl
// has no field for the formula's options.
func eksctlMaxPods(m v1alpha1.MaxPods, n *notes) int32 {
	if m.Value > 0 {
		return m.Value
	}
	if m.PrefixDelegation || m.CustomNetworking || m.MaxENIs > 0 || m.Cap {
		n.add("max pods: eksctl has no field for spec.maxPods.prefixDelegation, customNetworking, maxENIs or cap; they are left out and the node sizes max pods for its instance type: set spec.maxPods.value (eksctl's maxPodsPerNode) instead")
		return 0
	}
	n.add("max pods: %s; without it the node sizes them for its instance type", maxPodsByProducer[ProducerEksctl])
	return 0
}

// hubSpec is what the producer's part sets, in hub terms: the cluster
// fields the family's part carries, max pods, cluster DNS, the labels and
// taints as kubelet flags, and the kubelet config fields it carries. It
// stands for parts no nodeboot decoder reads (Windows, eksctl's
// cloud-config) and for AlwaysWritten.
func (in *injection) hubSpec(own hub.Kubelet) *hub.Spec {
	spec := hub.Spec{Cluster: in.cluster}
	if in.family != FamilyAL2023 && !(in.family == FamilyWindows && in.producer == ProducerEksctl) {
		spec.Cluster.CIDR = ""
	}
	config := map[string]json.RawMessage{}
	for k, v := range own.Config {
		config[k] = v
	}
	if in.maxPods > 0 {
		config["maxPods"] = json.RawMessage(strconv.Itoa(int(in.maxPods)))
	}
	writesDNS := in.producer != ProducerKarpenter && (in.family != FamilyAL2023 || in.producer == ProducerEksctl) &&
		(in.family != FamilyBottlerocket || in.producer == ProducerEKS)
	if in.dns != "" && writesDNS {
		config["clusterDNS"] = mustJSON([]string{in.dns})
	}
	labels := in.labels
	if in.producer == ProducerEksctl && in.family == FamilyAL2 {
		labels = append(append([]label{}, labels...),
			label{LabelEksctlLifecycle, strings.ToLower(strings.ReplaceAll(nodegroup.CapacityType(in.spec), "_", "-"))},
			label{LabelEksctlInstanceID, "<instance ID>"})
	}
	flags := []string{"--node-labels=" + labelsText(labels)}
	if len(in.taints) > 0 {
		flags = append(flags, "--register-with-taints="+taintsText(in.taints, in.producer))
	}
	spec.Kubelet = hub.Kubelet{Config: config, Flags: flags}
	return &spec
}

// AlwaysWritten is what the producer's part sets for any node group on
// family f, with placeholder values: the cluster fields, max pods (for a
// known instance type), cluster DNS where the part carries it, the
// producer's own labels and, for Karpenter, taints.
func AlwaysWritten(f Family, p Producer) hub.Spec {
	g := v1alpha1.NodeGroup{
		Metadata: v1alpha1.Metadata{Name: "nodegroup"},
		Spec: v1alpha1.NodeGroupSpec{
			Cluster:      v1alpha1.Cluster{Name: "cluster", APIServerEndpoint: "https://cluster.example", CertificateAuthority: []byte("ca"), CIDR: "10.100.0.0/16"},
			ImageID:      "ami-00000000",
			InstanceType: "m5.large",
		},
	}
	in := inject(g, f, p)
	return *in.hubSpec(hub.Kubelet{})
}

// labelsText is k=v,… in order.
func labelsText(ls []label) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = l.key + "=" + l.value
	}
	return strings.Join(parts, ",")
}

// taintsText is the --register-with-taints value; Karpenter always writes
// key=value:Effect, the others key:Effect for an empty value.
func taintsText(ts []v1alpha1.Taint, p Producer) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		switch {
		case t.Value != "" || p == ProducerKarpenter:
			parts[i] = t.Key + "=" + t.Value + ":" + t.Effect
		default:
			parts[i] = t.Key + ":" + t.Effect
		}
	}
	return strings.Join(parts, ",")
}
