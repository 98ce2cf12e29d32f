package hub

import "encoding/json"

// NodeConfig is the merged, enriched configuration of one node.
type NodeConfig struct {
	Spec   Spec   `json:"spec"`
	Status Status `json:"status,omitempty"`
}

// Spec is the user's intent, merged from every source in order.
type Spec struct {
	Cluster      Cluster         `json:"cluster,omitempty"`
	Containerd   Containerd      `json:"containerd,omitempty"`
	Instance     Instance        `json:"instance,omitempty"`
	Kubelet      Kubelet         `json:"kubelet,omitempty"`
	FeatureGates map[string]bool `json:"featureGates,omitempty"`

	// Identity says how the kubelet authenticates (nodeboot extension).
	Identity Identity `json:"identity,omitempty"`
	// MaxPods tunes the max-pods computation (nodeboot extension).
	MaxPods MaxPodsPolicy `json:"maxPods,omitempty"`
}

// Cluster identifies the cluster to join.
type Cluster struct {
	Name                 string `json:"name,omitempty"`
	APIServerEndpoint    string `json:"apiServerEndpoint,omitempty"`
	CertificateAuthority []byte `json:"certificateAuthority,omitempty"`
	// CIDR is the service CIDR.
	CIDR          string `json:"cidr,omitempty"`
	EnableOutpost *bool  `json:"enableOutpost,omitempty"`
	ID            string `json:"id,omitempty"`
	// IPFamily is "ipv4" or "ipv6" when the user says so without a CIDR
	// (bootstrap.sh --ip-family); otherwise the CIDR decides.
	IPFamily string `json:"ipFamily,omitempty"`
}

// Containerd tunes the container runtime.
type Containerd struct {
	Config          string                     `json:"config,omitempty"`
	BaseRuntimeSpec map[string]json.RawMessage `json:"baseRuntimeSpec,omitempty"`
	// ImportConfigDir makes the config import ContainerdConfigDropIns, as
	// the AL2 image's containerd config does; set for AL2 bootstrap.sh
	// input only (nodeadm's AL2023 templates have no imports line).
	ImportConfigDir bool `json:"importConfigDir,omitempty"`
}

// ContainerdConfigDropIns are the containerd config fragments the AL2
// image's config imports.
const ContainerdConfigDropIns = "/etc/containerd/config.d/*.toml"

// Instance configures the operating system.
type Instance struct {
	Environment  map[string]map[string]string `json:"environment,omitempty"`
	LocalStorage LocalStorage                 `json:"localStorage,omitempty"`
	Network      Network                      `json:"network,omitempty"`
}

// LocalStorage describes instance-store disk handling.
type LocalStorage struct {
	Strategy       string   `json:"strategy,omitempty"`
	MountPath      string   `json:"mountPath,omitempty"`
	DisabledMounts []string `json:"disabledMounts,omitempty"`
}

// Network configures name resolution.
type Network struct {
	Nameservers []string `json:"nameservers,omitempty"`
	Domains     []string `json:"domains,omitempty"`
}

// Kubelet configures the kubelet.
type Kubelet struct {
	// Config is a KubeletConfiguration fragment (JSON values by top-level key).
	Config map[string]json.RawMessage `json:"config,omitempty"`
	// Flags are extra kubelet flags, appended after the generated ones.
	Flags []string `json:"flags,omitempty"`
	// MaxPodsExpression is a CEL expression with variables default_enis,
	// ips_per_eni and max_pods (nodeadm-compatible).
	MaxPodsExpression string `json:"maxPodsExpression,omitempty"`
	// EksctlIMDSLabels adds to the node labels the two that eksctl's AL2
	// script takes from instance metadata at boot (node-lifecycle, from
	// Status.Instance.Lifecycle, and alpha.eksctl.io/instance-id): set for
	// eksctl's AL2 cloud-config only (package eksctlal2), never by users.
	EksctlIMDSLabels bool `json:"eksctlIMDSLabels,omitempty"`
}

// Identity modes.
const (
	IdentityExecCredential = "ExecCredential"
	IdentityBootstrapToken = "BootstrapToken"
)

// Identity says how the kubelet proves who it is to the API server.
type Identity struct {
	// Mode is ExecCredential (default, EKS style) or BootstrapToken (kubeadm style).
	Mode           string         `json:"mode,omitempty"`
	Exec           ExecCredential `json:"exec,omitempty"`
	BootstrapToken BootstrapToken `json:"bootstrapToken,omitempty"`
}

// ExecCredential configures the kubeconfig exec plugin.
type ExecCredential struct {
	// Command defaults to "aws"; Args default to eks get-token for the cluster.
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

// BootstrapToken configures kubelet TLS bootstrapping with a token.
type BootstrapToken struct {
	Token string `json:"token,omitempty"`
	// CACertHashes pin the cluster CA's public key ("sha256:<hex>") when the
	// CA is discovered from kube-public/cluster-info.
	CACertHashes []string `json:"caCertHashes,omitempty"`
	// UnsafeSkipCAVerification allows discovery without a pin.
	UnsafeSkipCAVerification bool `json:"unsafeSkipCAVerification,omitempty"`
}

// MaxPodsPolicy tunes how maxPods is derived from the instance type.
type MaxPodsPolicy struct {
	// PrefixDelegation counts /28 prefixes per IP slot (Nitro only).
	PrefixDelegation *bool `json:"prefixDelegation,omitempty"`
	// CustomNetworking leaves the primary ENI out of pod networking.
	CustomNetworking *bool `json:"customNetworking,omitempty"`
	// MaxENIs limits how many ENIs the CNI may use (0 = no limit).
	MaxENIs int `json:"maxENIs,omitempty"`
	// Cap applies the recommended ceiling: 110, or 250 above 30 vCPUs.
	Cap *bool `json:"cap,omitempty"`
	// Set is false when maxPods must not be written to the kubelet config
	// (bootstrap.sh --use-max-pods false); it still feeds kubeReserved.
	Set *bool `json:"set,omitempty"`
}

// Status is what the agent discovered; users cannot set it.
type Status struct {
	Instance          InstanceStatus `json:"instance,omitempty"`
	KubeletVersion    string         `json:"kubeletVersion,omitempty"`
	ContainerdVersion string         `json:"containerdVersion,omitempty"`
	SandboxImage      string         `json:"sandboxImage,omitempty"`
	Hardware          Hardware       `json:"hardware,omitempty"`
	NetworkLimits     NetworkLimits  `json:"networkLimits,omitempty"`
	// APIServerIPs are the API server host's addresses, pinned in /etc/hosts
	// on Outposts so the node survives a disconnect from the region's DNS.
	APIServerIPs []string `json:"apiServerIPs,omitempty"`
}

// InstanceStatus is the EC2 instance's identity.
type InstanceStatus struct {
	ID               string `json:"id,omitempty"`
	Region           string `json:"region,omitempty"`
	Type             string `json:"type,omitempty"`
	AvailabilityZone string `json:"availabilityZone,omitempty"`
	MAC              string `json:"mac,omitempty"`
	PrivateDNSName   string `json:"privateDnsName,omitempty"`
	// NodeIP is local-ipv4 (IPv4 clusters) or the first of the primary ENI's ipv6s.
	NodeIP string `json:"nodeIP,omitempty"`
	// VPCIPv4CIDRs are the primary ENI's VPC CIDR blocks (DNS fallback rule).
	VPCIPv4CIDRs []string `json:"vpcIPv4CIDRs,omitempty"`
	// Lifecycle is IMDS instance-life-cycle ("on-demand", "spot"), read
	// only for Spec.Kubelet.EksctlIMDSLabels; empty when it could not be read.
	Lifecycle string `json:"lifecycle,omitempty"`
}

// Hardware is what sysfs says about the machine.
type Hardware struct {
	CPUs      int   `json:"cpus,omitempty"`
	MemoryMiB int64 `json:"memoryMiB,omitempty"`
	// NvidiaGPU is true when a PCI device has vendor 0x10de.
	NvidiaGPU bool `json:"nvidiaGPU,omitempty"`
	// NvidiaRuntime is true when /usr/bin/nvidia-container-runtime exists.
	NvidiaRuntime bool `json:"nvidiaRuntime,omitempty"`
}

// NetworkLimits are the instance type's ENI limits.
type NetworkLimits struct {
	// DefaultENIs is the default network card's maximum ENIs.
	DefaultENIs int    `json:"defaultENIs,omitempty"`
	IPv4PerENI  int    `json:"ipv4PerENI,omitempty"`
	Hypervisor  string `json:"hypervisor,omitempty"`
	// Source is "table" or "ec2"; empty when unknown.
	Source string `json:"source,omitempty"`
}
