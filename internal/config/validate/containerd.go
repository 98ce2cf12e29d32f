package validate

import (
	"errors"
	"fmt"

	"github.com/pelletier/go-toml/v2"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// Plugin IDs that tell containerd's configuration versions apart.
const (
	containerdCRIv2     = "io.containerd.grpc.v1.cri"
	containerdImagesV3  = "io.containerd.cri.v1.images"
	containerdRuntimeV3 = "io.containerd.cri.v1.runtime"
)

// ContainerdConfigVersion reads which configuration version (schema) a
// containerd.config fragment is written for: 2 or 3 as it declares
// (version = N), else 3 when it configures an io.containerd.cri.v1.*
// plugin, 2 when it configures only io.containerd.grpc.v1.cri, and 0 when
// it says nothing version-specific. problem says what is wrong with a
// fragment that parses but no containerd could read as written (a version
// other than 2 or 3, version 2 with version 3 plugins); tomlErr is the
// TOML syntax error of one that does not parse.
func ContainerdConfigVersion(config string) (version int, problem string, tomlErr error) {
	if config == "" {
		return 0, "", nil
	}
	var document map[string]any
	if err := toml.Unmarshal([]byte(config), &document); err != nil {
		return 0, "", err
	}
	plugins, _ := document["plugins"].(map[string]any)
	byPlugins := containerdVersionFromPlugins(plugins)
	declared, hasVersion := document["version"]
	if !hasVersion {
		return byPlugins, "", nil
	}
	v, ok := declared.(int64)
	if !ok || (v != 2 && v != 3) {
		return 0, fmt.Sprintf("declares version = %v; nodeboot writes version 2 or 3", declared), nil
	}
	// Version 3 still has a few settings under io.containerd.grpc.v1.cri,
	// so only a version 2 declaration can contradict the plugins.
	if v == 2 && byPlugins == 3 {
		return 0, fmt.Sprintf("declares version = 2 but configures the version 3 plugins %s / %s", containerdImagesV3, containerdRuntimeV3), nil
	}
	return int(v), "", nil
}

// containerdVersionFromPlugins: any io.containerd.cri.v1.* plugin means
// version 3 (which keeps a few settings under io.containerd.grpc.v1.cri
// too); the CRI plugin alone means version 2; neither, 0.
func containerdVersionFromPlugins(plugins map[string]any) int {
	_, images := plugins[containerdImagesV3]
	_, runtime := plugins[containerdRuntimeV3]
	_, cri := plugins[containerdCRIv2]
	switch {
	case images || runtime:
		return 3
	case cri:
		return 2
	}
	return 0
}

// containerdValues checks that containerd.config is TOML some containerd
// can read (which one, the containerd version on the host decides).
func containerdValues(c hub.Containerd, fld *field.Path) field.ErrorList {
	_, problem, tomlErr := ContainerdConfigVersion(c.Config)
	var derr *toml.DecodeError
	switch {
	case errors.As(tomlErr, &derr):
		row, col := derr.Position()
		problem = fmt.Sprintf("is not valid TOML: line %d, column %d: %s", row, col, derr.Error())
	case tomlErr != nil:
		problem = "is not valid TOML: " + tomlErr.Error()
	case problem != "":
		problem = "containerd.config " + problem
	default:
		return nil
	}
	return field.ErrorList{field.Invalid(fld.Child("config"), field.OmitValueType{}, problem)}
}
