package decode

import (
	"bytes"
	"errors"
	"io"
	"reflect"

	"k8s.io/apimachinery/pkg/util/validation/field"
	yaml "sigs.k8s.io/yaml/goyaml.v3"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// Schema names a versioned document type other than NodeConfig that
// Object decodes with the same strictness.
type Schema struct {
	// APIVersion and Kind are the only values the document may declare.
	APIVersion, Kind string
	// Validate checks the decoded values; its errors are placed at their
	// fields, except where decoding already reported a problem. Optional.
	Validate func() field.ErrorList
}

// Object decodes the one YAML or JSON document in doc into out (a pointer
// to a struct whose apiVersion and kind fields are strings) by the rules
// NodeConfig documents follow: unknown fields, duplicate keys, wrong kinds
// and bad scalars are errors with their line and column, a
// spec.kubelet.config field is checked against KubeletConfiguration and a
// spec.containerd.config field must be TOML. It returns where every field
// path's value stands and every problem, sorted by position. It never
// panics: an internal failure becomes a problem.
func Object(doc userdata.Document, schema Schema, out any) (positions diag.Positions, problems diag.List) {
	defer func() {
		if r := recover(); r != nil {
			problems.Errorf(doc.Source, "", diag.Position{}, "internal error while decoding %s (please report this): %v", schema.Kind, r)
		}
	}()
	base := max(doc.Source.Line, 1)
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(doc.Data))
	err := dec.Decode(&root)
	switch {
	case errors.Is(err, io.EOF) || err == nil && isEmptyDocument(&root):
		problems.Errorf(doc.Source, "", diag.Position{Line: base}, "no %s found: the document is empty", schema.Kind)
		return diag.Positions{}, problems
	case err != nil:
		return diag.Positions{}, diag.List{syntaxProblem(doc.Source, base, doc.Data, err)}
	}
	w := newWalker(doc.Source, base, doc.Data, indexLines(doc.Data))
	w.hooks = hooks
	w.objectDocument(root.Content[0], schema, reflect.ValueOf(out).Elem())
	var next yaml.Node
	if err := dec.Decode(&next); err == nil && !isEmptyDocument(&next) {
		w.errorf(next.Content[0], "", "a second YAML document starts here; a file holds one %s", schema.Kind)
	}
	if schema.Validate != nil {
		w.problems = append(w.problems, w.valueProblems(schema.Validate())...)
	}
	sortByPosition(w.problems)
	return w.positions, w.problems
}

// objectDocument walks a document root and checks its apiVersion and kind.
func (w *walker) objectDocument(content *yaml.Node, schema Schema, v reflect.Value) {
	if content = w.enter(content); content == nil {
		return
	}
	if content.Kind != yaml.MappingNode {
		w.errorf(content, "", "a %s must be a mapping with apiVersion, kind and spec, got %s", schema.Kind, describe(content))
		return
	}
	w.object(content, "", v)
	apiVersion, kind := typeMeta(content)
	w.expectTypeMeta(content, apiVersion, "apiVersion", schema.APIVersion)
	w.expectTypeMeta(content, kind, "kind", schema.Kind)
	if _, ok := w.positions["spec"]; !ok && !w.exhausted {
		w.errorf(content, "spec", "missing; a %s needs a spec", schema.Kind)
	}
}

// expectTypeMeta reports a missing apiVersion or kind, or one other than want.
func (w *walker) expectTypeMeta(root, n *yaml.Node, field, want string) {
	switch {
	case n == nil:
		w.errorf(root, field, "missing; add %s: %s", field, want)
	case w.failed[field] || n.Value == want:
	default:
		w.errorf(n, field, "is %q; it must be %s", n.Value, want)
	}
}
