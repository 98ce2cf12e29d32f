package doctor

import (
	"strings"
	"testing"
)

// verdictCase is one evidence → verdict expectation: the verdict, words the
// summary must contain, and whether an action must be given.
type verdictCase struct {
	name    string
	got     Result
	verdict Verdict
	summary []string
	// evidence are words some evidence line must contain.
	evidence []string
}

func checkVerdicts(t *testing.T, id string, cases []verdictCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.got
			if r.ID != id {
				t.Errorf("ID = %q, want %q", r.ID, id)
			}
			if r.Verdict != tc.verdict {
				t.Errorf("verdict = %s, want %s (summary %q)", r.Verdict, tc.verdict, r.Summary)
			}
			for _, w := range tc.summary {
				if !strings.Contains(r.Summary, w) {
					t.Errorf("summary %q lacks %q", r.Summary, w)
				}
			}
			all := strings.Join(r.Evidence, "\n")
			for _, w := range tc.evidence {
				if !strings.Contains(all, w) {
					t.Errorf("evidence lacks %q:\n%s", w, all)
				}
			}
			switch {
			case (r.Verdict == Fail || r.Verdict == Warn) && r.Action == "":
				t.Errorf("%s without an action", r.Verdict)
			case r.Action != "" && strings.Count(strings.TrimSuffix(r.Action, "."), ". ") > 0:
				t.Errorf("action is more than one sentence: %q", r.Action)
			case r.Summary == "":
				t.Error("empty summary")
			}
		})
	}
}
