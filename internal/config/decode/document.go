package decode

import (
	"fmt"
	"reflect"
	"strings"

	yaml "sigs.k8s.io/yaml/goyaml.v3"

	nbv1 "github.com/nodeboot/nodeboot/api/nodeboot/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
	"github.com/nodeboot/nodeboot/internal/config/validate"
)

// document decodes one non-empty YAML document.
func document(data []byte, lines lineIndex, src diag.Source, base int, root *yaml.Node) (Decoded, diag.List) {
	content := root.Content[0]
	w := newWalker(src, base, data, lines)
	src.Line = w.at(content).Line
	w.src = src
	d := Decoded{Source: src, Positions: w.positions}
	if content = w.enter(content); content == nil || content.Kind != yaml.MappingNode {
		if content != nil {
			w.errorf(content, "", "%s", describeRoot(content))
		}
		d.APIVersion = nbv1.APIVersion
		return d, w.problems
	}
	apiVersion, kind := typeMeta(content)
	s, _ := schemaFor(scalarValue(apiVersion))
	d.APIVersion = s.apiVersion
	w.hooks = hooks
	if s.extensionsUnknown {
		w.unknownHint = extensionHint
		w.unknownStrictOnly = true
	}
	v := reflect.New(s.typ).Elem()
	w.object(content, "", v)
	w.checkAPIVersion(content, apiVersion)
	w.checkKind(content, kind)
	if _, ok := w.positions["spec"]; !ok && !w.exhausted {
		w.errorf(content, "spec", "missing; a NodeConfig needs a spec with at least cluster.name")
	}
	d.Spec = s.spec(v)
	for i, f := range d.Spec.Kubelet.Flags {
		d.Spec.Kubelet.Flags[i] = kubeletflag.NormalizeItem(f)
	}
	problems := w.problems
	if !w.exhausted { // past the budget, values are missing: checking them would only repeat the budget error
		problems = append(problems, w.valueProblems(validate.Spec(d.Spec))...)
	}
	sortByPosition(problems)
	return d, problems
}

// typeMeta finds the apiVersion and kind value nodes of a root mapping.
func typeMeta(root *yaml.Node) (apiVersion, kind *yaml.Node) {
	for i := 0; i+1 < len(root.Content); i += 2 {
		switch k := root.Content[i]; {
		case k.Value == "apiVersion" && apiVersion == nil:
			apiVersion = unalias(root.Content[i+1])
		case k.Value == "kind" && kind == nil:
			kind = unalias(root.Content[i+1])
		}
	}
	return apiVersion, kind
}

// unalias follows alias nodes to the node they name.
func unalias(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// scalarValue is n's text when n is a scalar, else "".
func scalarValue(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// checkAPIVersion reports a missing or unknown apiVersion, suggesting the
// known one closest to it.
func (w *walker) checkAPIVersion(root, n *yaml.Node) {
	known := strings.Join(knownAPIVersions(), " or ")
	switch {
	case n == nil:
		w.errorf(root, "apiVersion", "missing; add apiVersion: %s", known)
	case w.failed["apiVersion"]:
	default:
		if _, ok := schemaFor(n.Value); ok {
			return
		}
		msg := fmt.Sprintf("unknown apiVersion %q", n.Value)
		if guess := guessAPIVersion(n.Value); guess != "" {
			msg += fmt.Sprintf("; did you mean %s?", guess)
		}
		w.errorf(n, "apiVersion", "%s (known: %s)", msg, known)
	}
}

// checkKind reports a missing kind or one other than NodeConfig.
func (w *walker) checkKind(root, n *yaml.Node) {
	switch {
	case n == nil:
		w.errorf(root, "kind", "missing; add kind: %s", nbv1.Kind)
	case w.failed["kind"] || n.Value == nbv1.Kind:
	default:
		w.errorf(n, "kind", "unknown kind %q; it must be %s", n.Value, nbv1.Kind)
	}
}
