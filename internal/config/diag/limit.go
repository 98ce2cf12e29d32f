package diag

import "fmt"

// MaxProblems is how many problems one document reports at most: hostile
// or badly broken input must not flood the console (or memory) with
// thousands of lines. Limit replaces the rest with one summary.
const MaxProblems = 100

// Limit keeps the first MaxProblems problems of l and replaces the others
// with one problem saying how many were left out; it has error severity
// when any left-out problem is an error, so that HasErrors is unchanged.
// src is the document the problems belong to.
func Limit(l List, src Source) List {
	if len(l) <= MaxProblems {
		return l
	}
	rest := l[MaxProblems:]
	errs := len(rest.Filter(SeverityError))
	out := append(l[:MaxProblems:MaxProblems], Problem{
		Severity: SeverityWarning,
		Source:   src,
		Message: fmt.Sprintf("%d more problems in this document are not shown (%d of them errors); fix the ones above and check again",
			len(rest), errs),
	})
	if errs > 0 {
		out[MaxProblems].Severity = SeverityError
	}
	return out
}
