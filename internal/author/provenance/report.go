package provenance

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/nodeboot/nodeboot/internal/author/generate"
	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// WriteText renders the report for people: how the parts merge, the
// parts, every setting with its value and the part that set it (and what
// it overrode), then the problems and notes.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s user data as %s writes it: %s.\n\n", r.Family, r.Producer.Name(), r.Order)
	b.WriteString("parts:\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, p := range r.Parts {
		state := ""
		if !p.Applied {
			state = " (sets nothing nodeboot reads)"
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s%s\n", p.Number, p.Origin, p.Format, p.Source.String(), state)
	}
	tw.Flush()
	b.WriteString("\neffective configuration:\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, s := range r.Settings {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", s.Key, s.Value, refText(s.SetBy))
		for _, o := range s.Overridden {
			fmt.Fprintf(tw, "  \t  overrides %s\t%s\n", o.Value, refText(o.By))
		}
	}
	tw.Flush()
	if len(r.Problems) > 0 {
		b.WriteString("\n")
		for _, p := range r.Problems {
			b.WriteString(p.String() + "\n")
		}
	}
	for _, n := range r.Notes {
		b.WriteString("note: " + n + "\n")
	}
	errs, warns := len(r.Problems.Filter(diag.SeverityError)), len(r.Problems.Filter(diag.SeverityWarning))
	fmt.Fprintf(&b, "%d setting(s), %d overridden value(s) warned about, %d error(s), %d warning(s)\n", len(r.Settings), len(r.Overrides()), errs, warns)
	_, err := io.WriteString(w, b.String())
	return err
}

// refText names a value's origin: part 2 (Karpenter), or for user values
// part 1 (user, file:///u.yaml line 7).
func refText(r Ref) string {
	var where []string
	where = append(where, r.Origin)
	if r.Origin == generate.OriginUser && r.Source.URI != "" {
		loc := r.Source.URI
		if r.Source.Part > 0 {
			loc += fmt.Sprintf(" part %d", r.Source.Part)
		}
		if !r.Position.IsZero() {
			loc += fmt.Sprintf(" line %d", r.Position.Line)
		}
		where = append(where, loc)
	}
	if r.Flag {
		where = append(where, "kubelet flag")
	}
	return fmt.Sprintf("part %d (%s)", r.Part, strings.Join(where, ", "))
}
