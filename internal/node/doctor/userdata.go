package doctor

import (
	"fmt"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// UserDataEvidence is what `nodeboot config check` reports for the sources.
type UserDataEvidence struct {
	Sources []string
	Report  diag.CheckReport
	// Err says why the sources could not be read at all.
	Err error
}

// userDataVerdict judges the user data exactly as `config check` does.
func userDataVerdict(ev UserDataEvidence) Result {
	r := Result{ID: CheckUserData}
	sources := strings.Join(ev.Sources, ", ")
	if ev.Err != nil {
		r.Verdict, r.Summary = Fail, fmt.Sprintf("cannot read %s: %v", sources, ev.Err)
		r.Action = "Make the config sources readable (for imds://user-data, see the instance metadata check); `nodeboot config check` shows the same error."
		return r
	}
	for _, d := range ev.Report.Documents {
		state := "applied"
		if !d.Applied {
			state = "not applied"
		}
		r.Evidence = append(r.Evidence, fmt.Sprintf("%s: read as %s (%s)", d.Source.String(), orUnknown(d.Source.Format), state))
	}
	for _, p := range ev.Report.Problems {
		r.Evidence = append(r.Evidence, p.String())
	}
	errs := len(ev.Report.Problems.Filter(diag.SeverityError))
	warns := len(ev.Report.Problems.Filter(diag.SeverityWarning))
	applied := 0
	for _, d := range ev.Report.Documents {
		if d.Applied {
			applied++
		}
	}
	docs := fmt.Sprintf("%s: %d document(s), %d applied", sources, len(ev.Report.Documents), applied)
	switch {
	case !ev.Report.Valid && errs > 0 && errs == strictOnly(ev.Report.Problems):
		r.Verdict, r.Summary = Warn, fmt.Sprintf("%s; %d field(s) nodeadm does not know: the node boots and ignores them", docs, errs)
		r.Action = "Remove or correct the fields listed (a typo is ignored, not applied); `nodeboot config check` and `init --strict` refuse them."
	case !ev.Report.Valid:
		r.Verdict, r.Summary = Fail, fmt.Sprintf("%s; %d error(s), %d warning(s)", docs, errs, warns)
		r.Action = "Fix the errors listed (field, source and line are given), then reboot or run `nodeboot init` again; `nodeboot config check` reports the same."
	case warns > 0:
		r.Verdict, r.Summary = Warn, fmt.Sprintf("%s; valid with %d warning(s)", docs, warns)
		r.Action = "Read the warnings: the node is configured, but not the way the user data may intend."
	default:
		r.Verdict, r.Summary = OK, docs+"; valid"
	}
	return r
}

// strictOnly counts the errors nodeadm does not make (unknown fields of
// node.eks.aws documents): init warns about them and boots the node.
func strictOnly(problems diag.List) int {
	n := 0
	for _, p := range problems.Filter(diag.SeverityError) {
		if p.StrictOnly {
			n++
		}
	}
	return n
}
