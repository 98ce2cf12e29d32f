package decode

import (
	"reflect"
	"strings"
	"sync"

	nbv1 "github.com/nodeboot/nodeboot/api/nodeboot/v1alpha1"
	eksv1 "github.com/nodeboot/nodeboot/api/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/validate/suggest"
)

// schema is one known apiVersion: the Go type its documents are checked
// against and how its spec becomes the hub.
type schema struct {
	apiVersion string
	typ        reflect.Type
	spec       func(v reflect.Value) hub.Spec
	// extensionsUnknown is set when nodeboot extensions are unknown fields.
	extensionsUnknown bool
}

// schemas are the known apiVersions, nodeadm's first.
var schemas = []*schema{
	{
		apiVersion:        eksv1.APIVersion,
		typ:               reflect.TypeFor[eksv1.NodeConfig](),
		spec:              func(v reflect.Value) hub.Spec { return fromEKS(v.Addr().Interface().(*eksv1.NodeConfig).Spec) },
		extensionsUnknown: true,
	},
	{
		apiVersion: nbv1.APIVersion,
		typ:        reflect.TypeFor[nbv1.NodeConfig](),
		spec:       func(v reflect.Value) hub.Spec { return fromNodeboot(v.Addr().Interface().(*nbv1.NodeConfig).Spec) },
	},
}

// knownAPIVersions lists the schemas' apiVersions for messages.
func knownAPIVersions() []string {
	out := make([]string, len(schemas))
	for i, s := range schemas {
		out[i] = s.apiVersion
	}
	return out
}

// schemaFor returns the schema of apiVersion and whether it is known; for
// an unknown one it guesses the closest (by spelling, then by group), and
// falls back to nodeboot.io, the superset.
func schemaFor(apiVersion string) (*schema, bool) {
	for _, s := range schemas {
		if s.apiVersion == apiVersion {
			return s, true
		}
	}
	if guess := guessAPIVersion(apiVersion); guess != "" {
		s, _ := schemaFor(guess)
		return s, false
	}
	return schemas[len(schemas)-1], false
}

// guessAPIVersion returns the known apiVersion apiVersion most likely
// means, or "".
func guessAPIVersion(apiVersion string) string {
	if near := suggest.Closest(apiVersion, knownAPIVersions()); near != "" {
		return near
	}
	group, _, _ := strings.Cut(apiVersion, "/")
	for _, s := range schemas {
		if known, _, _ := strings.Cut(s.apiVersion, "/"); strings.EqualFold(known, group) {
			return s.apiVersion
		}
	}
	return ""
}

// extensionPaths are the field paths nodeboot.io has and node.eks.aws
// lacks ("spec.identity", ...), found by comparing the two types.
var extensionPaths = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	diffFields(reflect.TypeFor[nbv1.NodeConfig](), reflect.TypeFor[eksv1.NodeConfig](), "", out)
	return out
})

// diffFields adds to out the paths of fields in a that b lacks, descending
// into struct fields both have.
func diffFields(a, b reflect.Type, path string, out map[string]bool) {
	fa, fb := fieldsOf(a), fieldsOf(b)
	for _, name := range fa.names {
		p := childPath(path, name)
		other, ok := fb.byName[name]
		if !ok {
			out[p] = true
			continue
		}
		if ta, tb := fa.byName[name].typ, other.typ; ta.Kind() == reflect.Struct && tb.Kind() == reflect.Struct {
			diffFields(ta, tb, p, out)
		}
	}
}

// extensionHint explains an unknown field that is a nodeboot extension.
func extensionHint(path string) string {
	if extensionPaths()[path] {
		return "it is a nodeboot extension: set apiVersion: " + nbv1.APIVersion + " to use it"
	}
	return ""
}

// hooks decode the paths whose values need more than the generic walk.
var hooks = map[string]hook{
	"spec.kubelet.config":                         (*walker).kubeletConfig,
	"spec.containerd.config":                      (*walker).containerdConfig,
	"spec.kubelet.config[kubeReserved]":           quantityMap(false),
	"spec.kubelet.config[systemReserved]":         quantityMap(false),
	"spec.kubelet.config[evictionHard]":           quantityMap(true),
	"spec.kubelet.config[evictionSoft]":           quantityMap(true),
	"spec.kubelet.config[evictionMinimumReclaim]": quantityMap(true),
}
