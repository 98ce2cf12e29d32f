package v1

import (
	"fmt"

	"sigs.k8s.io/yaml"
)

// Load reads a kubeconfig written as YAML or JSON. Fields this package does
// not model are ignored, as client-go's loader ignores unknown ones; an
// apiVersion or kind other than v1 and Config (or none) is an error.
func Load(data []byte) (Config, error) {
	var c Config
	if err := yaml.Unmarshal(data, &c); err != nil {
		return Config{}, fmt.Errorf("kubeconfig: %w", err)
	}
	if c.APIVersion != "" && c.APIVersion != Version || c.Kind != "" && c.Kind != Kind {
		return Config{}, fmt.Errorf("kubeconfig: apiVersion %q, kind %q: want %s, %s", c.APIVersion, c.Kind, Version, Kind)
	}
	return c, nil
}
