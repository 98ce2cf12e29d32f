package v1alpha1

import "encoding/json"

// Group, Version and Kind identify a nodeadm NodeConfig document.
const (
	Group      = "node.eks.aws"
	Version    = "v1alpha1"
	APIVersion = Group + "/" + Version
	Kind       = "NodeConfig"
)

// NodeConfig is the nodeadm user-data document.
type NodeConfig struct {
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Metadata   map[string]any `json:"metadata,omitempty"`
	Spec       NodeConfigSpec `json:"spec"`
}

// NodeConfigSpec is the user's intent for the node.
type NodeConfigSpec struct {
	Cluster      ClusterDetails    `json:"cluster,omitempty"`
	Containerd   ContainerdOptions `json:"containerd,omitempty"`
	Instance     InstanceOptions   `json:"instance,omitempty"`
	Kubelet      KubeletOptions    `json:"kubelet,omitempty"`
	FeatureGates map[string]bool   `json:"featureGates,omitempty"`
}

// ClusterDetails says which cluster the node joins.
type ClusterDetails struct {
	Name                 string `json:"name,omitempty"`
	APIServerEndpoint    string `json:"apiServerEndpoint,omitempty"`
	CertificateAuthority []byte `json:"certificateAuthority,omitempty"`
	CIDR                 string `json:"cidr,omitempty"`
	EnableOutpost        *bool  `json:"enableOutpost,omitempty"`
	ID                   string `json:"id,omitempty"`
}

// ContainerdOptions tunes the container runtime.
type ContainerdOptions struct {
	// Config is inline TOML deep-merged over the generated config.toml.
	Config string `json:"config,omitempty"`
	// BaseRuntimeSpec is deep-merged over the default OCI runtime spec.
	BaseRuntimeSpec map[string]json.RawMessage `json:"baseRuntimeSpec,omitempty"`
}

// InstanceOptions configures the operating system.
type InstanceOptions struct {
	Environment  map[string]map[string]string `json:"environment,omitempty"`
	LocalStorage LocalStorageOptions          `json:"localStorage,omitempty"`
	Network      NetworkOptions               `json:"network,omitempty"`
}

// LocalStorageOptions describes how instance-store disks are used.
type LocalStorageOptions struct {
	Strategy       string   `json:"strategy,omitempty"`
	MountPath      string   `json:"mountPath,omitempty"`
	DisabledMounts []string `json:"disabledMounts,omitempty"`
}

// NetworkOptions configures name resolution.
type NetworkOptions struct {
	Nameservers []string `json:"nameservers,omitempty"`
	Domains     []string `json:"domains,omitempty"`
}

// KubeletOptions configures the kubelet.
type KubeletOptions struct {
	// Config is a KubeletConfiguration fragment written as a drop-in.
	Config map[string]json.RawMessage `json:"config,omitempty"`
	// Flags are extra kubelet command-line flags, appended last.
	Flags []string `json:"flags,omitempty"`
	// MaxPodsExpression is a CEL expression computing maxPods.
	MaxPodsExpression string `json:"maxPodsExpression,omitempty"`
}

// Local storage strategies.
const (
	LocalStorageRAID0  = "RAID0"
	LocalStorageRAID10 = "RAID10"
	LocalStorageMount  = "Mount"
)

// Mounts that may be disabled in LocalStorageOptions.DisabledMounts.
const (
	DisabledMountContainerd = "Containerd"
	DisabledMountPodLogs    = "PodLogs"
	DisabledMountSOCI       = "SOCI"
)

// Feature gates nodeadm knows.
const (
	FeatureInstanceIDNodeName = "InstanceIdNodeName"
	FeatureFastImagePull      = "FastImagePull"
)
