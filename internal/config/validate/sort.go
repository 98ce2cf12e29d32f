package validate

import (
	"maps"
	"slices"
)

// sortedKeys returns m's keys in order, so errors come out deterministically.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
