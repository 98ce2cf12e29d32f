package target

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	v1alpha1 "github.com/nodeboot/nodeboot/api/nodegroup/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/author/generate"
	"github.com/nodeboot/nodeboot/internal/author/provenance"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// Target is what consumes the user data.
type Target string

// Targets.
const (
	EKSManaged  Target = "eks-managed"
	Karpenter   Target = "karpenter"
	SelfManaged Target = "self-managed"
)

// Targets lists every target, in the order help text shows them.
func Targets() []Target { return []Target{EKSManaged, Karpenter, SelfManaged} }

// ErrUnknownTarget is returned by Parse for a name it does not know.
var ErrUnknownTarget = errors.New("unknown target")

// Parse reads a target name.
func Parse(s string) (Target, error) {
	if t := Target(s); slices.Contains(Targets(), t) {
		return t, nil
	}
	names := make([]string, len(Targets()))
	for i, t := range Targets() {
		names[i] = string(t)
	}
	return "", fmt.Errorf("%w %q; use one of %s", ErrUnknownTarget, s, strings.Join(names, ", "))
}

// producer is the producer that merges its part into the user data.
func (t Target) producer() (generate.Producer, bool) {
	switch t {
	case EKSManaged:
		return generate.ProducerEKS, true
	case Karpenter:
		return generate.ProducerKarpenter, true
	}
	return "", false
}

// Check reports what t does with docs, the user data of family f, that
// the user may not expect. group, when given, is the node group the user
// data is for; the generated part then has its real values.
func Check(docs []userdata.Document, t Target, f generate.Family, group *v1alpha1.NodeGroup) diag.List {
	var out diag.List
	for _, d := range docs {
		out = append(out, contentType(d, t, f)...)
		if d.Format == userdata.FormatBottlerocket && f == generate.FamilyBottlerocket {
			out = append(out, bottlerocketKeys(d, t)...)
		}
	}
	p, merged := t.producer()
	if !merged || out.HasErrors() {
		return out
	}
	if group == nil {
		return append(out, provenance.AlwaysOverridden(docs, f, p)...)
	}
	r, err := provenance.Merge(generate.Input{Group: *group, Family: f, Producer: p, User: docs})
	if err != nil {
		out.Errorf(diag.Source{URI: "merge"}, "", diag.Position{}, "%v", err)
		return out
	}
	return append(out, r.Overrides()...)
}
