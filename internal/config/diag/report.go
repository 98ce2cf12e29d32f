package diag

import (
	"fmt"
	"io"
	"strings"
)

// DocumentInfo describes one document found in the sources.
type DocumentInfo struct {
	Source Source `json:"source"`
	// Applied is false for documents nodeboot lists but leaves to others
	// (cloud-init parts, shell scripts without a bootstrap.sh call).
	Applied bool `json:"applied"`
}

// CheckReport is the result of `nodeboot config check`, and what the
// doctor's user-data check reads.
type CheckReport struct {
	Documents []DocumentInfo `json:"documents"`
	Problems  List           `json:"problems"`
	// Discover lists cluster fields that will be looked up at boot.
	Discover []string `json:"discover,omitempty"`
	Valid    bool     `json:"valid"`
}

// WriteText renders the report for people.
func (r CheckReport) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, d := range r.Documents {
		state := "applied"
		if !d.Applied {
			state = "not applied"
		}
		fmt.Fprintf(&b, "%s: %s (%s)\n", d.Source.String(), d.Source.Format, state)
	}
	for _, p := range r.Problems {
		b.WriteString(p.String())
		b.WriteByte('\n')
	}
	if len(r.Discover) > 0 {
		fmt.Fprintf(&b, "note: %s will be discovered with eks:DescribeCluster at boot\n", strings.Join(r.Discover, ", "))
	}
	errs, warns := len(r.Problems.Filter(SeverityError)), len(r.Problems.Filter(SeverityWarning))
	if r.Valid {
		fmt.Fprintf(&b, "configuration is valid (%d warning(s))\n", warns)
	} else {
		fmt.Fprintf(&b, "configuration is invalid: %d error(s), %d warning(s)\n", errs, warns)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
