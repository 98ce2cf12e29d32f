package containerd

import (
	"bytes"
	_ "embed"

	"github.com/nodeboot/nodeboot/api/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/node/render"
)

// FastImagePull thresholds: nodeadm enables SOCI only where parallel pull
// and unpack pay off (most xlarge types; the kernel shows a little less
// memory than the instance type advertises, hence 7 GiB).
const (
	fastImagePullMinCPUs      = 4
	fastImagePullMinMemoryMiB = 7 * 1024
)

// SOCI snapshotter locations.
const (
	// SOCISocket is the snapshotter's gRPC socket; the kubelet's
	// imageServiceEndpoint is "unix://" + SOCISocket when SOCI is on.
	SOCISocket = "/run/soci-snapshotter-grpc/soci-snapshotter-grpc.sock"
	// SOCIRoot is the snapshotter's state directory.
	SOCIRoot = "/var/lib/soci-snapshotter-grpc"
	// SOCIConfigPath is the snapshotter's configuration file.
	SOCIConfigPath = "/etc/soci-snapshotter-grpc/config.toml"
	// SOCIDropInPath makes containerd.service require soci-snapshotter.service;
	// writing it needs a systemd daemon-reload.
	SOCIDropInPath = "/etc/systemd/system/containerd.service.d/10-soci-snapshotter.conf"
)

var (
	//go:embed templates/soci-snapshotter.toml
	sociConfig []byte
	//go:embed templates/10-soci-snapshotter.conf
	sociDropIn []byte
)

// FastImagePullEnabled reports whether the SOCI snapshotter is used: the
// FastImagePull feature gate is on and the machine has at least 4 CPUs and
// 7 GiB of memory. The kubelet renderer and the pause-image import use the
// same decision.
func FastImagePullEnabled(cfg hub.NodeConfig) bool {
	return cfg.Spec.FeatureGates[v1alpha1.FeatureFastImagePull] &&
		cfg.Status.Hardware.CPUs >= fastImagePullMinCPUs &&
		cfg.Status.Hardware.MemoryMiB >= fastImagePullMinMemoryMiB
}

// sociFiles are the snapshotter configuration (parallel pull and unpack,
// unpigz for gzip layers) and the containerd unit drop-in.
func sociFiles() []render.File {
	return []render.File{
		{Path: SOCIConfigPath, Mode: fileMode, Data: bytes.Clone(sociConfig)},
		{Path: SOCIDropInPath, Mode: fileMode, Data: bytes.Clone(sociDropIn)},
	}
}
