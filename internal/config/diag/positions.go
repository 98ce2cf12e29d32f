package diag

import "k8s.io/apimachinery/pkg/util/validation/field"

// Positions maps a field path, written as k8s.io/apimachinery field.Path
// renders it ("spec.kubelet.flags[2]", "spec.instance.environment[default]"),
// to where that field's value stands in the source.
type Positions map[string]Position

// Lookup returns the position of path or, failing that, of its nearest
// ancestor that has one.
func (ps Positions) Lookup(path string) Position {
	for p := path; p != ""; p = parentPath(p) {
		if pos, ok := ps[p]; ok {
			return pos
		}
	}
	return Position{}
}

func parentPath(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		switch p[i] {
		case '.':
			return p[:i]
		case '[':
			return p[:i]
		}
	}
	return ""
}

// OriginNodeadmAccepts marks a field error (field.Error.Origin) that
// nodeadm does not make: it boots such input, so the problem it becomes is
// StrictOnly (a warning at boot; config check and init --strict refuse it).
const OriginNodeadmAccepts = "nodeadm-accepts"

// FromFieldErrors converts apimachinery field errors into problems, placing
// each at the position of its field in src; values that may be secret are
// left out and long ones cut (FieldErrorBody). Errors from
// OriginNodeadmAccepts are StrictOnly.
func FromFieldErrors(src Source, errs field.ErrorList, ps Positions, sev Severity) List {
	out := make(List, 0, len(errs))
	for _, e := range errs {
		out = append(out, Problem{
			Severity:   sev,
			Source:     src,
			Field:      e.Field,
			Position:   ps.Lookup(e.Field),
			Message:    FieldErrorBody(e),
			StrictOnly: e.Origin == OriginNodeadmAccepts,
		})
	}
	return out
}
