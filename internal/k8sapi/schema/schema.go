// Package schema is the group and version of a Kubernetes API, as
// k8s.io/apimachinery/pkg/runtime/schema names them.
package schema

// GroupVersion is an API group and version.
type GroupVersion struct {
	Group   string
	Version string
}

// String is "group/version", or "version" for the core group.
func (gv GroupVersion) String() string {
	if gv.Group == "" {
		return gv.Version
	}
	return gv.Group + "/" + gv.Version
}
