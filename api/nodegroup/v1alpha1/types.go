package v1alpha1

import "encoding/json"

// API group, version and kind of NodeGroup documents.
const (
	Group      = "nodeboot.io"
	Version    = "v1alpha1"
	APIVersion = Group + "/" + Version
	Kind       = "NodeGroup"
)

// Capacity types (the EKS managed node group API's spelling).
const (
	CapacityOnDemand = "ON_DEMAND"
	CapacitySpot     = "SPOT"
)

// Taint effects (Kubernetes' spelling).
const (
	EffectNoSchedule       = "NoSchedule"
	EffectPreferNoSchedule = "PreferNoSchedule"
	EffectNoExecute        = "NoExecute"
)

// NodeGroup describes the nodes of one node group.
type NodeGroup struct {
	APIVersion string        `json:"apiVersion"`
	Kind       string        `json:"kind"`
	Metadata   Metadata      `json:"metadata"`
	Spec       NodeGroupSpec `json:"spec"`
}

// Metadata names the node group.
type Metadata struct {
	// Name is the node group's name (the EKS node group, eksctl node group
	// or Karpenter NodePool it stands for).
	Name string `json:"name"`
}

// NodeGroupSpec is what every node of the group gets.
type NodeGroupSpec struct {
	// Cluster is the cluster the nodes join.
	Cluster Cluster `json:"cluster"`
	// ImageID is the AMI (ami-…); EKS labels nodes with it.
	ImageID string `json:"imageId,omitempty"`
	// InstanceType is the EC2 instance type max pods are computed for.
	InstanceType string `json:"instanceType,omitempty"`
	// CapacityType is CapacityOnDemand (default) or CapacitySpot.
	CapacityType string `json:"capacityType,omitempty"`
	// LaunchTemplate is the launch template the node group was created
	// from; EKS labels nodes with its ID and version.
	LaunchTemplate *LaunchTemplate `json:"launchTemplate,omitempty"`
	// NodeRole is the IAM role of the nodes (arn:aws:iam::ACCOUNT:role/NAME),
	// as an EKS managed node group's nodeRole; `nodeboot access` checks its
	// mapping (without it, the launch template's instance profile says).
	NodeRole string `json:"nodeRole,omitempty"`
	// Labels are node labels (keys outside the kubelet's restricted
	// kubernetes.io and k8s.io domains).
	Labels map[string]string `json:"labels,omitempty"`
	// Taints are registered with the node.
	Taints []Taint `json:"taints,omitempty"`
	// MaxPods says how many pods a node takes.
	MaxPods MaxPods `json:"maxPods,omitempty"`
	// Kubelet holds kubelet settings beyond labels, taints and max pods.
	Kubelet Kubelet `json:"kubelet,omitempty"`
	// Containerd holds containerd settings.
	Containerd Containerd `json:"containerd,omitempty"`
}

// Cluster identifies the cluster. Only Name is required; the producers
// always write the endpoint, CA and service CIDR, and a node booted by
// nodeboot looks up the ones left out with eks:DescribeCluster.
type Cluster struct {
	// Name is the EKS cluster name.
	Name string `json:"name"`
	// APIServerEndpoint is the API server URL.
	APIServerEndpoint string `json:"apiServerEndpoint,omitempty"`
	// CertificateAuthority is the cluster CA bundle (PEM), base64 in YAML.
	CertificateAuthority []byte `json:"certificateAuthority,omitempty"`
	// CIDR is the service CIDR; the cluster DNS address is derived from it.
	CIDR string `json:"cidr,omitempty"`
}

// LaunchTemplate names an EC2 launch template version.
type LaunchTemplate struct {
	// ID is the launch template ID (lt-…).
	ID string `json:"id"`
	// Version is the launch template version number.
	Version string `json:"version"`
}

// Taint is a Kubernetes node taint.
type Taint struct {
	Key   string `json:"key"`
	Value string `json:"value,omitempty"`
	// Effect is EffectNoSchedule, EffectPreferNoSchedule or EffectNoExecute.
	Effect string `json:"effect"`
}

// MaxPods is the max-pods policy: a fixed Value, or the VPC CNI formula for
// InstanceType tuned like max-pods-calculator.sh. With neither, the
// generated user data leaves max pods to the node.
type MaxPods struct {
	// Value is the max pods of every node; it wins over the formula.
	Value int32 `json:"value,omitempty"`
	// PrefixDelegation counts a /28 prefix per secondary IP slot (Nitro).
	PrefixDelegation bool `json:"prefixDelegation,omitempty"`
	// CustomNetworking leaves the primary ENI out of pod networking.
	CustomNetworking bool `json:"customNetworking,omitempty"`
	// MaxENIs limits the ENIs the CNI uses (0 = no limit).
	MaxENIs int `json:"maxENIs,omitempty"`
	// Cap applies the recommended ceiling: 110, or 250 above 30 vCPUs.
	Cap bool `json:"cap,omitempty"`
}

// Kubelet holds extra kubelet settings.
type Kubelet struct {
	// Config is a KubeletConfiguration (kubelet.config.k8s.io/v1beta1)
	// fragment; maxPods and registerWithTaints belong in spec.maxPods and
	// spec.taints.
	Config map[string]json.RawMessage `json:"config,omitempty"`
	// Flags are extra kubelet flags ("--name=value").
	Flags []string `json:"flags,omitempty"`
}

// Containerd holds extra containerd settings.
type Containerd struct {
	// Config is TOML deep-merged over the node's containerd config.toml.
	Config string `json:"config,omitempty"`
	// BaseRuntimeSpec is deep-merged over the default OCI runtime spec.
	BaseRuntimeSpec map[string]json.RawMessage `json:"baseRuntimeSpec,omitempty"`
}
