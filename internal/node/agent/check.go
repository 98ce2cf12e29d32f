package agent

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/config/validate"
)

// Checker is an extra check of the documents read (config check
// --target); its problems are reported with the others.
type Checker func(docs []userdata.Document) diag.List

// CheckOption extends Check.
type CheckOption func(*checkOptions)

type checkOptions struct {
	checkers []Checker
	supplied map[string]bool
}

// WithChecker runs c on the documents read.
func WithChecker(c Checker) CheckOption {
	return func(o *checkOptions) { o.checkers = append(o.checkers, c) }
}

// Supplied names fields (spec.cluster.name, …) that something else adds
// to the user data before a node reads it (EKS's or Karpenter's part):
// they are not reported missing, nor listed for discovery.
func Supplied(fields ...string) CheckOption {
	return func(o *checkOptions) {
		for _, f := range fields {
			o.supplied[f] = true
		}
	}
}

// Check reads, decodes, merges and validates without touching AWS APIs or
// the host (IMDS is read only for an imds:// source), then runs the extra
// checkers on the documents.
func (a *Agent) Check(ctx context.Context, sources []string, opts ...CheckOption) (diag.CheckReport, error) {
	in, err := a.Read(ctx, sources)
	if err != nil {
		return diag.CheckReport{}, err
	}
	return report(in, sources, opts...), nil
}

// CheckUserData checks user data given as bytes, named uri, the way Check
// checks a source: userdata generate and merge check their own output with
// it before printing it.
func (a *Agent) CheckUserData(uri string, data []byte, opts ...CheckOption) diag.CheckReport {
	docs, problems := userdata.Split(diag.Source{URI: uri}, data)
	in := Input{Problems: problems}
	a.decode(&in, docs)
	return report(in, []string{uri}, opts...)
}

// report merges and validates what was read and runs the checkers.
func report(in Input, sources []string, opts ...CheckOption) diag.CheckReport {
	o := checkOptions{supplied: map[string]bool{}}
	for _, opt := range opts {
		opt(&o)
	}
	rep := diag.CheckReport{Documents: in.DocumentInfos(), Problems: in.Problems}
	for _, check := range o.checkers {
		rep.Problems = append(rep.Problems, check(in.Documents)...)
	}
	decodeErrors := in.Problems.HasErrors()
	spec, problems, err := in.Merged()
	switch {
	case errors.Is(err, ErrNoConfig):
		if !decodeErrors {
			rep.Problems.Errorf(diag.Source{}, "", diag.Position{}, "%v in %s", err, strings.Join(sources, ", "))
		}
	case err != nil:
		// Documents already in error may not merge; their problems say why.
		if !decodeErrors {
			rep.Problems.Errorf(diag.Source{URI: "merged configuration"}, "", diag.Position{}, "%v", err)
		}
	default:
		rep.Problems = append(rep.Problems, newFields(rep.Problems, unsupplied(problems, o.supplied))...)
		rep.Problems = append(rep.Problems, in.unappliedWarnings(spec)...)
		if !decodeErrors {
			for _, f := range validate.DiscoveryNeeded(spec) {
				if !o.supplied[f] {
					rep.Discover = append(rep.Discover, f)
				}
			}
		}
	}
	sortProblems(rep.Documents, rep.Problems)
	rep.Valid = !rep.Problems.HasErrors()
	return rep
}

// sortProblems orders problems as a reader meets them: by document, then
// line and column. Problems without a document (merged configuration) come
// last; the sort is stable, so equal positions keep their order.
func sortProblems(docs []diag.DocumentInfo, problems diag.List) {
	rank := func(p diag.Problem) int {
		for i, d := range docs {
			if d.Source.URI == p.Source.URI && d.Source.Part == p.Source.Part {
				return i
			}
		}
		return len(docs)
	}
	slices.SortStableFunc(problems, func(a, b diag.Problem) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)),
			cmp.Compare(a.Position.Line, b.Position.Line),
			cmp.Compare(a.Position.Column, b.Position.Column))
	})
}

// unsupplied drops the problems about supplied fields.
func unsupplied(problems diag.List, supplied map[string]bool) diag.List {
	var out diag.List
	for _, p := range problems {
		if !supplied[p.Field] {
			out = append(out, p)
		}
	}
	return out
}

// newFields drops merged-config problems about fields already reported, so
// every problem is reported once even when some documents are in error.
func newFields(have, merged diag.List) diag.List {
	seen := map[string]bool{}
	for _, p := range have {
		seen[p.Field] = true
	}
	var out diag.List
	for _, p := range merged {
		if !seen[p.Field] {
			out = append(out, p)
		}
	}
	return out
}

// DocumentInfos says, for every document found, what it was read as and
// whether it contributed to the config.
func (in Input) DocumentInfos() []diag.DocumentInfo {
	out := make([]diag.DocumentInfo, 0, len(in.Documents))
	for _, d := range in.Documents {
		src := d.Source
		src.Format = string(d.Format)
		applied := false
		for _, f := range in.Fragments {
			if f.Source.URI == src.URI && f.Source.Part == src.Part {
				applied = true
				if f.Source.Format != "" {
					src.Format = f.Source.Format
				}
			}
		}
		out = append(out, diag.DocumentInfo{Source: src, Applied: applied})
	}
	return out
}
