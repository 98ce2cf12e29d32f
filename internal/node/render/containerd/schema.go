package containerd

import (
	"errors"
	"fmt"

	"github.com/pelletier/go-toml/v2"

	"github.com/nodeboot/nodeboot/internal/config/merge"
	"github.com/nodeboot/nodeboot/internal/config/validate"
)

// Schema is a containerd daemon configuration version.
type Schema int

// Configuration versions this package renders.
const (
	// SchemaV2 is read by containerd 1.x and migrated in memory by 2.x.
	SchemaV2 Schema = 2
	// SchemaV3 is containerd 2.x's native configuration.
	SchemaV3 Schema = 3
)

// Plugin IDs that tell the schemas apart.
const (
	pluginCRIv2     = "io.containerd.grpc.v1.cri"
	pluginImagesV3  = "io.containerd.cri.v1.images"
	pluginRuntimeV3 = "io.containerd.cri.v1.runtime"
)

// chooseSchema picks the template schema from containerd's major version
// and the user's fragment:
//
//   - containerd 1.x: always v2; a v3 fragment is an error.
//   - containerd 2.x: v3, unless the fragment is v2 (it declares
//     version = 2, or configures io.containerd.grpc.v1.cri without any
//     io.containerd.cri.v1.* plugin). Then the v2 template is merged with it
//     and written as version 2, which containerd 2 migrates in memory at
//     start-up. nodeadm instead runs `containerd config migrate` on the boot
//     path; we skip that exec.
func chooseSchema(containerdMajor int, userConfig string) (Schema, error) {
	fragment, err := classifyUserConfig(userConfig)
	if err != nil {
		return 0, err
	}
	if containerdMajor < 2 {
		if fragment == SchemaV3 {
			return 0, fmt.Errorf("%w: containerd.config uses configuration version 3 (version = 3 or the %s / %s plugins), "+
				"which containerd %d.x cannot read; write it for version 2 (plugin %s)",
				ErrConfigSchema, pluginImagesV3, pluginRuntimeV3, containerdMajor, pluginCRIv2)
		}
		return SchemaV2, nil
	}
	if fragment == SchemaV2 {
		return SchemaV2, nil
	}
	return SchemaV3, nil
}

// classifyUserConfig reads the schema the user's fragment is written for
// (validate.ContainerdConfigVersion; 0 when it fits either), with the
// errors wrapped in ErrConfigSchema or merge.ErrInvalidTOML.
func classifyUserConfig(userConfig string) (Schema, error) {
	version, problem, tomlErr := validate.ContainerdConfigVersion(userConfig)
	switch {
	case tomlErr != nil:
		return 0, fmt.Errorf("containerd.config: %w", describeTOMLError(tomlErr))
	case problem != "":
		return 0, fmt.Errorf("%w: containerd.config %s", ErrConfigSchema, problem)
	}
	return Schema(version), nil
}

// describeTOMLError gives a go-toml error its position and merge's sentinel.
func describeTOMLError(err error) error {
	var decodeErr *toml.DecodeError
	if errors.As(err, &decodeErr) {
		row, col := decodeErr.Position()
		return fmt.Errorf("%w: line %d, column %d: %w", merge.ErrInvalidTOML, row, col, err)
	}
	return fmt.Errorf("%w: %w", merge.ErrInvalidTOML, err)
}
