package v1alpha1

import "encoding/json"

// NodeConfig is the nodeboot.io/v1alpha1 user-data document. Its spec is a
// superset of node.eks.aws/v1alpha1: every nodeadm field has the same name,
// JSON tag and meaning, and the extensions are marked below.
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

	// Identity says how the kubelet authenticates (extension).
	Identity IdentityOptions `json:"identity,omitempty"`
	// MaxPods tunes how maxPods is derived from the instance type (extension).
	MaxPods MaxPodsOptions `json:"maxPods,omitempty"`
}

// ClusterDetails says which cluster the node joins. Unlike node.eks.aws,
// only Name is needed: a missing APIServerEndpoint, CertificateAuthority or
// CIDR is looked up with eks:DescribeCluster.
type ClusterDetails struct {
	// Name is the EKS cluster name.
	Name string `json:"name,omitempty"`
	// APIServerEndpoint is the API server URL, e.g. https://ABC.gr7.us-west-2.eks.amazonaws.com.
	APIServerEndpoint string `json:"apiServerEndpoint,omitempty"`
	// CertificateAuthority is the cluster CA bundle (PEM), base64 in YAML and JSON.
	CertificateAuthority []byte `json:"certificateAuthority,omitempty"`
	// CIDR is the service CIDR, e.g. 10.100.0.0/16.
	CIDR string `json:"cidr,omitempty"`
	// EnableOutpost selects the local-cluster-on-Outposts mode; it needs ID.
	EnableOutpost *bool `json:"enableOutpost,omitempty"`
	// ID is the cluster ID (Outposts).
	ID string `json:"id,omitempty"`
	// IPFamily is IPFamilyIPv4 or IPFamilyIPv6 when no CIDR is given
	// (extension); with a CIDR, the CIDR decides and both must agree.
	IPFamily string `json:"ipFamily,omitempty"`
}

// ContainerdOptions tunes the container runtime.
type ContainerdOptions struct {
	// Config is inline TOML deep-merged over the generated config.toml.
	Config string `json:"config,omitempty"`
	// BaseRuntimeSpec is any JSON object, deep-merged over the default OCI runtime spec.
	BaseRuntimeSpec map[string]json.RawMessage `json:"baseRuntimeSpec,omitempty"`
}

// InstanceOptions configures the operating system.
type InstanceOptions struct {
	// Environment maps "default" (system-wide) or a systemd service name
	// (without ".service") to environment variables.
	Environment  map[string]map[string]string `json:"environment,omitempty"`
	LocalStorage LocalStorageOptions          `json:"localStorage,omitempty"`
	Network      NetworkOptions               `json:"network,omitempty"`
}

// LocalStorageOptions describes how instance-store disks are used.
type LocalStorageOptions struct {
	// Strategy is LocalStorageRAID0, LocalStorageRAID10 or LocalStorageMount.
	Strategy string `json:"strategy,omitempty"`
	// MountPath is an absolute directory (default /mnt/k8s-disks).
	MountPath string `json:"mountPath,omitempty"`
	// DisabledMounts lists DisabledMount* values not to bind-mount onto the array.
	DisabledMounts []string `json:"disabledMounts,omitempty"`
}

// NetworkOptions configures name resolution.
type NetworkOptions struct {
	// Nameservers are IP addresses of DNS servers.
	Nameservers []string `json:"nameservers,omitempty"`
	// Domains are search or routing domains for systemd-resolved.
	Domains []string `json:"domains,omitempty"`
}

// KubeletOptions configures the kubelet.
type KubeletOptions struct {
	// Config is a KubeletConfiguration (kubelet.config.k8s.io/v1beta1)
	// fragment, checked field by field and written as a drop-in.
	Config map[string]json.RawMessage `json:"config,omitempty"`
	// Flags are extra kubelet command-line flags ("--name=value"), appended last.
	Flags []string `json:"flags,omitempty"`
	// MaxPodsExpression is a CEL expression over default_enis, ips_per_eni
	// and max_pods that computes maxPods.
	MaxPodsExpression string `json:"maxPodsExpression,omitempty"`
}

// IdentityOptions says how the kubelet proves who it is (extension).
type IdentityOptions struct {
	// Mode is IdentityExecCredential (default) or IdentityBootstrapToken.
	Mode string `json:"mode,omitempty"`
	// Exec configures the kubeconfig exec plugin (ExecCredential mode).
	Exec ExecCredentialOptions `json:"exec,omitempty"`
	// BootstrapToken configures TLS bootstrapping (BootstrapToken mode).
	BootstrapToken BootstrapTokenOptions `json:"bootstrapToken,omitempty"`
}

// ExecCredentialOptions configures the kubeconfig exec plugin.
type ExecCredentialOptions struct {
	// Command defaults to "aws".
	Command string `json:"command,omitempty"`
	// Args default to "eks get-token --cluster-name <name>".
	Args []string `json:"args,omitempty"`
	// Env is extra environment for the command.
	Env map[string]string `json:"env,omitempty"`
}

// BootstrapTokenOptions configures kubelet TLS bootstrapping with a
// kubeadm-style bootstrap token.
type BootstrapTokenOptions struct {
	// Token is "<6 chars>.<16 chars>" of [a-z0-9].
	Token string `json:"token,omitempty"`
	// CACertHashes pin the public key of the CA read from
	// kube-public/cluster-info, each "sha256:<64 hex digits>".
	CACertHashes []string `json:"caCertHashes,omitempty"`
	// UnsafeSkipCAVerification trusts cluster-info without a pin.
	UnsafeSkipCAVerification bool `json:"unsafeSkipCAVerification,omitempty"`
}

// MaxPodsOptions tunes the max-pods computation (extension).
type MaxPodsOptions struct {
	// PrefixDelegation counts /28 prefixes per IP slot (Nitro only).
	PrefixDelegation *bool `json:"prefixDelegation,omitempty"`
	// CustomNetworking leaves the primary ENI out of pod networking.
	CustomNetworking *bool `json:"customNetworking,omitempty"`
	// MaxENIs limits how many ENIs the CNI may use (0 = no limit).
	MaxENIs int `json:"maxENIs,omitempty"`
	// Cap applies the recommended ceiling: 110, or 250 above 30 vCPUs.
	Cap *bool `json:"cap,omitempty"`
	// Set false keeps maxPods out of the kubelet config; it still feeds kubeReserved.
	Set *bool `json:"set,omitempty"`
}
