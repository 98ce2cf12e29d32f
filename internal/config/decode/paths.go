package decode

import (
	"strconv"
	"strings"
)

// childPath appends a struct field name: spec.cluster.
func childPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// keyPath appends a map key: spec.instance.environment[default].
func keyPath(parent, key string) string {
	return parent + "[" + key + "]"
}

// indexPath appends a list index: spec.kubelet.flags[2].
func indexPath(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}

// parentPath drops the last element of a field path; a trailing [key] is
// dropped whole, even when the key holds dots.
func parentPath(p string) string {
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i]
		}
	}
	if i := strings.LastIndexAny(p, ".["); i >= 0 {
		return p[:i]
	}
	return ""
}
