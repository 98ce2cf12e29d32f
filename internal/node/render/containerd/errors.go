package containerd

import "errors"

// ErrContainerdVersion means Status.ContainerdVersion is empty or does not
// start with a numeric major version.
var ErrContainerdVersion = errors.New("unknown containerd version")

// ErrKubeletVersion means Status.KubeletVersion is set but does not parse.
var ErrKubeletVersion = errors.New("unparseable kubelet version")

// ErrInvalidRuntime means Inputs names a runtime that cannot be written
// (a name that is not a bare TOML key, or a relative binary path).
var ErrInvalidRuntime = errors.New("invalid container runtime")

// ErrConfigSchema means the user's containerd.config uses a configuration
// schema the installed containerd cannot read, or mixes two schemas.
var ErrConfigSchema = errors.New("containerd config schema mismatch")
