package convert

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// Emitter writes a spec in one user-data format. It returns the user data,
// the settings it could not express (hub field path, then why) and an
// error only when no useful user data can be written at all.
type Emitter func(spec hub.Spec) (data []byte, unexpressible []string, err error)

// Target names accepted by Target (the CLI's --to values).
const (
	TargetNodeConfig   = "nodeconfig"
	TargetBootstrapSh  = "bootstrap-sh"
	TargetBottlerocket = "bottlerocket"
	TargetWindows      = "windows"
)

// ErrUnknownTarget is returned by Target for a name it does not know.
var ErrUnknownTarget = errors.New("unknown conversion target")

// ErrClusterNameRequired is returned by emitters whose format cannot be
// written without the cluster name.
var ErrClusterNameRequired = errors.New("spec.cluster.name is required for this format")

// ErrUnrepresentable is returned (wrapped) when a value the format
// requires cannot be written in it.
var ErrUnrepresentable = errors.New("spec cannot be written in this format")

// Targets lists the target names in the order help text should show them.
func Targets() []string {
	return []string{TargetNodeConfig, TargetBootstrapSh, TargetBottlerocket, TargetWindows}
}

// Target returns the emitter for a --to name.
func Target(name string) (Emitter, error) {
	switch name {
	case TargetNodeConfig:
		return NodeConfig, nil
	case TargetBootstrapSh:
		return BootstrapSh, nil
	case TargetBottlerocket:
		return Bottlerocket, nil
	case TargetWindows:
		return Windows, nil
	}
	return nil, fmt.Errorf("%w %q; use one of %s", ErrUnknownTarget, name, strings.Join(Targets(), ", "))
}
