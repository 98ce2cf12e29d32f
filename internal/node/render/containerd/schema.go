package containerd

import (
	"errors"
	"fmt"

	"github.com/pelletier/go-toml/v2"

	"github.com/nodeboot/nodeboot/internal/config/merge"
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

// userSchema is what a user fragment says about its schema; 0 means the
// fragment mentions nothing schema-specific and fits either template.
type userSchema int

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
		if fragment == userSchema(SchemaV3) {
			return 0, fmt.Errorf("%w: containerd.config uses configuration version 3 (version = 3 or the %s / %s plugins), "+
				"which containerd %d.x cannot read; write it for version 2 (plugin %s)",
				ErrConfigSchema, pluginImagesV3, pluginRuntimeV3, containerdMajor, pluginCRIv2)
		}
		return SchemaV2, nil
	}
	if fragment == userSchema(SchemaV2) {
		return SchemaV2, nil
	}
	return SchemaV3, nil
}

// classifyUserConfig reads the declared version and the plugin IDs of the
// user's fragment. An explicit version wins over the plugin IDs, except
// that version = 2 with io.containerd.cri.v1.* plugins is an error, as is
// any version other than 2 or 3.
func classifyUserConfig(userConfig string) (userSchema, error) {
	if userConfig == "" {
		return 0, nil
	}
	var document map[string]any
	if err := toml.Unmarshal([]byte(userConfig), &document); err != nil {
		return 0, fmt.Errorf("containerd.config: %w", describeTOMLError(err))
	}
	plugins, _ := document["plugins"].(map[string]any)
	byPlugins := schemaFromPlugins(plugins)
	version, hasVersion := document["version"]
	if !hasVersion {
		return byPlugins, nil
	}
	declared, ok := version.(int64)
	if !ok || (declared != int64(SchemaV2) && declared != int64(SchemaV3)) {
		return 0, fmt.Errorf("%w: containerd.config declares version = %v; nodeboot writes version 2 or 3",
			ErrConfigSchema, version)
	}
	// Version 3 still has a few settings under io.containerd.grpc.v1.cri, so
	// only a version 2 declaration can contradict the plugins.
	if declared == int64(SchemaV2) && byPlugins == userSchema(SchemaV3) {
		return 0, fmt.Errorf("%w: containerd.config declares version = 2 but configures the version 3 plugins %s / %s",
			ErrConfigSchema, pluginImagesV3, pluginRuntimeV3)
	}
	return userSchema(declared), nil
}

// schemaFromPlugins: any io.containerd.cri.v1.* plugin means v3 (v3 keeps a
// few settings under io.containerd.grpc.v1.cri too); the CRI plugin alone
// means v2.
func schemaFromPlugins(plugins map[string]any) userSchema {
	_, images := plugins[pluginImagesV3]
	_, runtime := plugins[pluginRuntimeV3]
	_, cri := plugins[pluginCRIv2]
	switch {
	case images || runtime:
		return userSchema(SchemaV3)
	case cri:
		return userSchema(SchemaV2)
	default:
		return 0
	}
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
