package doctor

import (
	"errors"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

func TestUserDataVerdict(t *testing.T) {
	src := []string{"imds://user-data"}
	docs := []diag.DocumentInfo{
		{Source: diag.Source{URI: "imds://user-data", Part: 1, ContentType: "text/x-shellscript", Format: "shell"}},
		{Source: diag.Source{URI: "imds://user-data", Part: 2, ContentType: "application/node.eks.aws", Format: "NodeConfig"}, Applied: true},
	}
	problem := func(sev diag.Severity, msg string) diag.Problem {
		return diag.Problem{Severity: sev, Source: docs[1].Source, Field: "spec.kubelet.config.maxPods", Position: diag.Position{Line: 12, Column: 7}, Message: msg}
	}
	checkVerdicts(t, CheckUserData, []verdictCase{
		{name: "valid, with the format of each part", got: userDataVerdict(UserDataEvidence{Sources: src, Report: diag.CheckReport{Documents: docs, Valid: true}}, CloudEvidence{}),
			verdict: OK, summary: []string{"2 document(s), 1 applied", "valid"},
			evidence: []string{"part 1 (text/x-shellscript): read as shell (not applied)", "part 2 (application/node.eks.aws): read as NodeConfig (applied)"}},
		{name: "warnings", got: userDataVerdict(UserDataEvidence{Sources: src, Report: diag.CheckReport{Documents: docs, Valid: true,
			Problems: diag.List{problem(diag.SeverityWarning, "maxPods above the ENI limit")}}}, CloudEvidence{}),
			verdict: Warn, summary: []string{"1 warning"}, evidence: []string{"maxPods above the ENI limit"}},
		{name: "errors, as config check reports them", got: userDataVerdict(UserDataEvidence{Sources: src, Report: diag.CheckReport{Documents: docs,
			Problems: diag.List{problem(diag.SeverityError, "must be a number")}}}, CloudEvidence{}),
			verdict: Fail, summary: []string{"1 error(s)"}, evidence: []string{"spec.kubelet.config.maxPods", "must be a number", "line 12:7"}},
		{name: "unknown node.eks.aws fields: the node boots, so a warning", got: userDataVerdict(UserDataEvidence{Sources: src, Report: diag.CheckReport{Documents: docs,
			Problems: diag.List{func() diag.Problem {
				p := problem(diag.SeverityError, `unknown field "clusterEndpoint"`)
				p.StrictOnly = true
				return p
			}()}}}, CloudEvidence{}),
			verdict: Warn, summary: []string{"1 field(s) nodeadm does not know", "boots"}, evidence: []string{"clusterEndpoint"}},
		{name: "unreadable source", got: userDataVerdict(UserDataEvidence{Sources: src, Err: errors.New("imds user-data: timeout")}, CloudEvidence{}),
			verdict: Fail, summary: []string{"cannot read imds://user-data", "timeout"}},
	})
}
