package containerd

import (
	"fmt"
	"io/fs"
	"path"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/lazyregexp"
	"github.com/nodeboot/nodeboot/internal/node/render"
)

// Output locations.
const (
	// ConfigPath is containerd's daemon configuration.
	ConfigPath = "/etc/containerd/config.toml"
	// BaseRuntimeSpecPath is the OCI spec containers start from.
	BaseRuntimeSpecPath = "/etc/containerd/base-runtime-spec.json"
	// ConfigDropInGlob is what the config imports for AL2 input
	// (Spec.Containerd.ImportConfigDir): fragments that user data or the
	// AMI put in /etc/containerd/config.d/, as the AL2 image's config does.
	// nodeadm's (AL2023) templates import nothing, and neither does the
	// config rendered from NodeConfig input.
	// containerd merges each imported file over the main config one plugin
	// table at a time (an imported plugin table replaces the whole table).
	ConfigDropInGlob = hub.ContainerdConfigDropIns
	// Socket is containerd's gRPC socket (the kubelet's runtime endpoint is
	// "unix://" + Socket).
	Socket = "/run/containerd/containerd.sock"
	// DefaultSandboxImage is the pause image cached on EKS AMIs, used when
	// Status.SandboxImage is empty.
	DefaultSandboxImage = "localhost/kubernetes/pause:latest"
)

// Default runtimes, as nodeadm chooses them.
const (
	RuntimeRunc         = "runc"
	RuntimeRuncBinary   = "/usr/sbin/runc"
	RuntimeNvidia       = "nvidia"
	RuntimeNvidiaBinary = "/usr/bin/nvidia-container-runtime"
)

const fileMode fs.FileMode = 0o644

// runtimeNamePattern keeps the name usable as a bare TOML key.
var runtimeNamePattern = lazyregexp.New(`^[A-Za-z0-9_-]+$`)

// Inputs are the facts the caller detects on the host.
type Inputs struct {
	// RuntimeBinary is the OCI runtime executable, e.g. /usr/sbin/runc or
	// /usr/bin/nvidia-container-runtime. Empty means the default binary of
	// RuntimeName (runc or nvidia).
	RuntimeBinary string
	// RuntimeName is the CRI runtime handler name, runc or nvidia. Empty
	// means runc.
	RuntimeName string
}

// Render produces /etc/containerd/config.toml, /etc/containerd/
// base-runtime-spec.json and, when FastImagePullEnabled, the SOCI
// snapshotter configuration and containerd unit drop-in (the caller then
// needs a systemd daemon-reload). The config schema follows
// Status.ContainerdVersion (1.x: version 2, 2.x: version 3) and the user's
// containerd.config, which is deep-merged over the template; see
// chooseSchema for the v2-fragment-on-containerd-2 rule.
func Render(cfg hub.NodeConfig, in Inputs) ([]render.File, error) {
	runtimeName, runtimeBinary, err := resolveRuntime(in)
	if err != nil {
		return nil, err
	}
	containerdMajor, _, err := majorMinor(cfg.Status.ContainerdVersion)
	if err != nil {
		return nil, fmt.Errorf("%w: Status.ContainerdVersion: %w", ErrContainerdVersion, err)
	}
	enableCDI, err := kubeletSupportsCDI(cfg.Status.KubeletVersion)
	if err != nil {
		return nil, err
	}
	schema, err := chooseSchema(containerdMajor, cfg.Spec.Containerd.Config)
	if err != nil {
		return nil, err
	}
	soci := FastImagePullEnabled(cfg)
	imports := ""
	if cfg.Spec.Containerd.ImportConfigDir {
		imports = ConfigDropInGlob
	}
	config, err := renderConfig(schema, templateValues{
		Imports:         imports,
		Socket:          Socket,
		SandboxImage:    sandboxImage(cfg.Status.SandboxImage),
		EnableCDI:       enableCDI,
		RuntimeName:     runtimeName,
		RuntimeBinary:   runtimeBinary,
		BaseRuntimeSpec: BaseRuntimeSpecPath,
		SOCI:            soci,
		SOCISocket:      SOCISocket,
		SOCIRoot:        SOCIRoot,
	}, cfg.Spec.Containerd.Config)
	if err != nil {
		return nil, err
	}
	spec, err := renderBaseRuntimeSpec(cfg.Spec.Containerd.BaseRuntimeSpec)
	if err != nil {
		return nil, err
	}
	files := []render.File{
		{Path: ConfigPath, Mode: fileMode, Data: config},
		{Path: BaseRuntimeSpecPath, Mode: fileMode, Data: spec},
	}
	if soci {
		files = append(files, sociFiles()...)
	}
	return files, nil
}

// resolveRuntime fills defaults and checks what ends up in the TOML.
func resolveRuntime(in Inputs) (name, binary string, err error) {
	name, binary = in.RuntimeName, in.RuntimeBinary
	if name == "" {
		name = RuntimeRunc
	}
	if binary == "" {
		switch name {
		case RuntimeRunc:
			binary = RuntimeRuncBinary
		case RuntimeNvidia:
			binary = RuntimeNvidiaBinary
		default:
			return "", "", fmt.Errorf("%w: runtime %q needs a binary path", ErrInvalidRuntime, name)
		}
	}
	if !runtimeNamePattern.MatchString(name) {
		return "", "", fmt.Errorf("%w: runtime name %q must match %s", ErrInvalidRuntime, name, runtimeNamePattern)
	}
	if !path.IsAbs(binary) {
		return "", "", fmt.Errorf("%w: runtime binary %q is not an absolute path", ErrInvalidRuntime, binary)
	}
	return name, binary, nil
}

// kubeletSupportsCDI is true from kubelet 1.32 on (nodeadm's enable_cdi
// rule). An unknown kubelet version leaves CDI off.
func kubeletSupportsCDI(kubeletVersion string) (bool, error) {
	if kubeletVersion == "" {
		return false, nil
	}
	major, minor, err := majorMinor(kubeletVersion)
	if err != nil {
		return false, fmt.Errorf("%w: Status.KubeletVersion: %w", ErrKubeletVersion, err)
	}
	return atLeast(major, minor, 1, 32), nil
}

func sandboxImage(status string) string {
	if status == "" {
		return DefaultSandboxImage
	}
	return status
}
