package decode

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// valueProblems places validate's field errors at their fields' positions,
// leaving out errors on fields (or inside fields) that already failed to
// decode: their empty value would only repeat the problem.
func (w *walker) valueProblems(errs field.ErrorList) diag.List {
	kept := errs[:0:0]
	for _, e := range errs {
		if !w.failedAt(e.Field) {
			kept = append(kept, e)
		}
	}
	problems := diag.FromFieldErrors(w.src, kept, w.positions, diag.SeverityError)
	if !w.unknownStrictOnly { // not a node.eks.aws document: nodeboot's rules are the reference
		for i := range problems {
			problems[i].StrictOnly = false
		}
	}
	return problems
}

// failedAt reports whether path or one of its ancestors has a problem.
func (w *walker) failedAt(path string) bool {
	for p := path; p != ""; p = parentPath(p) {
		if w.failed[p] {
			return true
		}
	}
	return false
}
