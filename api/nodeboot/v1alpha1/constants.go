package v1alpha1

import eks "github.com/nodeboot/nodeboot/api/v1alpha1"

// Group, Version and Kind identify a nodeboot NodeConfig document.
const (
	Group      = "nodeboot.io"
	Version    = "v1alpha1"
	APIVersion = Group + "/" + Version
	Kind       = "NodeConfig"
)

// Local storage strategies, mounts and feature gates are node.eks.aws's.
const (
	LocalStorageRAID0  = eks.LocalStorageRAID0
	LocalStorageRAID10 = eks.LocalStorageRAID10
	LocalStorageMount  = eks.LocalStorageMount

	DisabledMountContainerd = eks.DisabledMountContainerd
	DisabledMountPodLogs    = eks.DisabledMountPodLogs
	DisabledMountSOCI       = eks.DisabledMountSOCI

	FeatureInstanceIDNodeName = eks.FeatureInstanceIDNodeName
	FeatureFastImagePull      = eks.FeatureFastImagePull
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
