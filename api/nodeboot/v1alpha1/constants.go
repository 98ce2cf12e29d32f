package v1alpha1

// Group, Version and Kind identify a nodeboot NodeConfig document.
const (
	Group      = "nodeboot.io"
	Version    = "v1alpha1"
	APIVersion = Group + "/" + Version
	Kind       = "NodeConfig"
)

// Local storage strategies (same values as node.eks.aws).
const (
	LocalStorageRAID0  = "RAID0"
	LocalStorageRAID10 = "RAID10"
	LocalStorageMount  = "Mount"
)

// Mounts that may be listed in LocalStorageOptions.DisabledMounts.
const (
	DisabledMountContainerd = "Containerd"
	DisabledMountPodLogs    = "PodLogs"
	DisabledMountSOCI       = "SOCI"
)

// Feature gates (same as node.eks.aws).
const (
	FeatureInstanceIDNodeName = "InstanceIdNodeName"
	FeatureFastImagePull      = "FastImagePull"
)

// IP families for ClusterDetails.IPFamily.
const (
	IPFamilyIPv4 = "ipv4"
	IPFamilyIPv6 = "ipv6"
)

// Identity modes for IdentityOptions.Mode.
const (
	IdentityExecCredential = "ExecCredential"
	IdentityBootstrapToken = "BootstrapToken"
)

// EnvironmentDefault is the InstanceOptions.Environment key for
// system-wide variables; every other key names a systemd service.
const EnvironmentDefault = "default"
