package decode

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	yaml "sigs.k8s.io/yaml/goyaml.v3"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// Decoded is one NodeConfig document converted to the hub.
type Decoded struct {
	// Spec is the document's spec. When the problems returned with it
	// include errors it is best effort (fields in error are left empty) and
	// must not be applied.
	Spec hub.Spec
	// Source is the user-data document's source, with Line set to the line
	// where this YAML document starts.
	Source diag.Source
	// Positions maps every field path seen to where its value starts.
	Positions diag.Positions
	// APIVersion is the known apiVersion the document was checked against:
	// its own, or for an unknown one the closest known (or nodeboot.io/v1alpha1).
	APIVersion string
}

// NodeConfig decodes every YAML document in doc (empty ones are skipped)
// and returns those it could read, with every problem found in any of
// them. It never panics: an internal failure becomes a problem.
func NodeConfig(doc userdata.Document) (out []Decoded, problems diag.List) {
	defer func() {
		if r := recover(); r != nil {
			problems.Errorf(doc.Source, "", diag.Position{}, "internal error while decoding NodeConfig (please report this): %v", r)
		}
		problems = diag.Limit(problems, doc.Source)
	}()
	base := max(doc.Source.Line, 1)
	dec := yaml.NewDecoder(bytes.NewReader(doc.Data))
	lines := indexLines(doc.Data)
	for {
		var root yaml.Node
		err := dec.Decode(&root)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			problems = append(problems, laterSyntaxProblem(out, doc.Data, syntaxProblem(doc.Source, base, doc.Data, err), base))
			break
		}
		if isEmptyDocument(&root) {
			continue
		}
		d, ps := document(doc.Data, lines, doc.Source, base, &root)
		out = append(out, d)
		problems = append(problems, ps...)
	}
	for _, d := range out[min(1, len(out)):] {
		if readByNodeadm(out[0]) && readByNodeadm(d) {
			problems.Warnf(doc.Source, "", diag.Position{Line: d.Source.Line},
				"a second node.eks.aws document in one part: nodeadm reads only the first document of a part, nodeboot merges them all in order; give each its own MIME part to have nodeadm read it too")
			break
		}
	}
	if len(out) == 0 && !problems.HasErrors() {
		problems.Errorf(doc.Source, "", diag.Position{Line: base}, "no NodeConfig found: the document is empty")
	}
	return out, problems
}

// isEmptyDocument reports a document with no content or only null.
func isEmptyDocument(root *yaml.Node) bool {
	if len(root.Content) == 0 {
		return true
	}
	c := root.Content[0]
	return c.Kind == yaml.ScalarNode && c.ShortTag() == tagNull
}

// sortByPosition orders problems by line and column; problems without a
// position go last, and ties keep the order they were found in.
func sortByPosition(ps diag.List) {
	slices.SortStableFunc(ps, func(a, b diag.Problem) int {
		if za, zb := a.Position.IsZero(), b.Position.IsZero(); za || zb {
			return boolInt(za) - boolInt(zb)
		}
		if a.Position.Line != b.Position.Line {
			return a.Position.Line - b.Position.Line
		}
		return a.Position.Column - b.Position.Column
	})
}

// boolInt is 1 for true.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// describeRoot names what a document root is when it is not a mapping.
func describeRoot(n *yaml.Node) string {
	return fmt.Sprintf("a NodeConfig must be a mapping with apiVersion, kind and spec, got %s", describeAt(n, ""))
}

// readByNodeadm reports a node.eks.aws document, which nodeadm reads.
func readByNodeadm(d Decoded) bool {
	s, _ := schemaFor(d.APIVersion)
	return s.extensionsUnknown
}

// laterSyntaxProblem marks a syntax error in a later document of a part
// (after a "---" line that follows a node.eks.aws first document)
// StrictOnly: nodeadm reads only the first document of a part and boots,
// so the boot uses the documents before the error, warning. Trailing text
// after the first document's end is still an error, as it is for nodeadm.
func laterSyntaxProblem(before []Decoded, data []byte, p diag.Problem, base int) diag.Problem {
	if len(before) == 0 || !readByNodeadm(before[0]) {
		return p
	}
	start := before[0].Source.Line - base // 0-based line of the first document
	for i, line := range bytes.Split(data, []byte("\n")) {
		if i > start && i+base < p.Position.Line && bytes.HasPrefix(bytes.TrimRight(line, "\r"), []byte("---")) {
			p.StrictOnly = true
			p.Message += "; nodeadm reads only the first document of a part, so the boot uses the documents before this one"
			return p
		}
	}
	return p
}
