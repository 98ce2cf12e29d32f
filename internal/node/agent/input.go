package agent

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeboot/nodeboot/api/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/aws/imds"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/fragment"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/merge"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/config/validate"
	"github.com/nodeboot/nodeboot/internal/node/source"
)

// ErrNoConfig is returned when no source holds any node configuration.
var ErrNoConfig = errors.New("no node configuration found")

// Fragment is one decoded document's contribution to the config.
type Fragment = fragment.Fragment

// Input is everything read from the config sources.
type Input struct {
	// Documents are all documents found, applied or not, in order.
	Documents []userdata.Document
	// Fragments are the decoded configs, in merge order.
	Fragments []Fragment
	Problems  diag.List
	// decoder carries what a document changes for the later ones (see
	// fragment.Decoder), across sources.
	decoder *fragment.Decoder
}

// Read reads and decodes every source in order.
func (a *Agent) Read(ctx context.Context, sources []string) (Input, error) {
	reader := source.Reader{Root: a.Root, IMDS: userDataFetcher{a.Metadata}}
	var in Input
	for _, uri := range sources {
		docs, problems, err := reader.Read(ctx, uri)
		if err != nil {
			return in, err // names the source already
		}
		in.Problems = append(in.Problems, problems...)
		a.decode(&in, docs)
	}
	return in, nil
}

// decode decodes docs into in.
func (a *Agent) decode(in *Input, docs []userdata.Document) {
	if in.decoder == nil {
		in.decoder = &fragment.Decoder{}
	}
	for _, doc := range docs {
		in.Documents = append(in.Documents, doc)
		frags, problems := in.decoder.Decode(doc)
		in.Fragments = append(in.Fragments, frags...)
		in.Problems = append(in.Problems, problems...)
		in.Problems = append(in.Problems, fragment.CheckExpressions(frags, a.Expressions)...)
	}
}

// DecodeDocument dispatches on the document's format (see package fragment).
func DecodeDocument(doc userdata.Document) ([]Fragment, diag.List) { return fragment.Decode(doc) }

// Merged merges the fragments and validates the result. Problems found in
// the merged config have no single source; they name the field.
func (in Input) Merged() (hub.Spec, diag.List, error) {
	if len(in.Fragments) == 0 {
		return hub.Spec{}, nil, ErrNoConfig
	}
	specs := make([]hub.Spec, len(in.Fragments))
	for i, f := range in.Fragments {
		specs[i] = f.Spec
	}
	spec, err := merge.Specs(specs...)
	if err != nil {
		return hub.Spec{}, nil, fmt.Errorf("merge: %w", err)
	}
	return spec, in.attribute(validate.Merged(spec, validate.Options{NodeadmStrict: in.nodeadmOnly()})), nil
}

// nodeadmOnly reports whether every fragment is a node.eks.aws document:
// such a config must be complete the way nodeadm requires, not discovered.
func (in Input) nodeadmOnly() bool {
	for _, f := range in.Fragments {
		if f.APIVersion != v1alpha1.APIVersion {
			return false
		}
	}
	return len(in.Fragments) > 0
}

// attribute places each merged-config error in the last document that set
// the field (or, for a missing field, its nearest parent), so users see
// which part to fix.
func (in Input) attribute(errs field.ErrorList) diag.List {
	out := make(diag.List, 0, len(errs))
	for _, e := range errs {
		p := diag.Problem{Severity: diag.SeverityError, Source: diag.Source{URI: "merged configuration"}, Field: e.Field, Message: diag.FieldErrorBody(e)}
		for i := len(in.Fragments) - 1; i >= 0; i-- {
			if pos := in.Fragments[i].Positions.Lookup(e.Field); !pos.IsZero() {
				p.Source, p.Position = in.Fragments[i].Source, pos
				break
			}
		}
		out = append(out, p)
	}
	return out
}

// userDataFetcher adapts Metadata to source.UserDataFetcher, mapping a
// missing user-data document to source.ErrNoUserData.
type userDataFetcher struct{ md Metadata }

// UserData fetches the user data, mapping 404 to source.ErrNoUserData.
func (f userDataFetcher) UserData(ctx context.Context) ([]byte, error) {
	if f.md == nil {
		return nil, fmt.Errorf("%w: no instance metadata client", source.ErrNoUserData)
	}
	b, err := f.md.UserData(ctx)
	if errors.Is(err, imds.ErrNotFound) {
		return nil, fmt.Errorf("%w: %w", source.ErrNoUserData, err)
	}
	return b, err
}
