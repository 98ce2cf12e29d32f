package access

import (
	"fmt"
	"io"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/awsauth"
)

// WriteText writes the report for people.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "cluster %s: authentication mode %s", r.Cluster.Name, r.Cluster.Mode)
	if r.Cluster.ModeNote != "" {
		fmt.Fprintf(&b, " (%s)", r.Cluster.ModeNote)
	}
	b.WriteString("\n")
	writeFindings(&b, r.Cluster.Findings)
	joining := 0
	for _, g := range r.Groups {
		b.WriteString("\n")
		writeGroup(&b, g)
		if g.WillJoin {
			joining++
		}
	}
	fmt.Fprintf(&b, "\n%d of %d node groups will join.\n", joining, len(r.Groups))
	_, err := io.WriteString(w, b.String())
	return err
}

func writeGroup(b *strings.Builder, g GroupReport) {
	verdict := "will join"
	if !g.WillJoin {
		verdict = "WILL NOT JOIN"
	}
	fmt.Fprintf(b, "node group %s (%s, %s): %s\n", g.Name, g.Source, osName(g.Windows), verdict)
	if g.RoleARN != "" {
		fmt.Fprintf(b, "  role %s", g.RoleARN)
		if g.MappedARN != "" && g.MappedARN != g.RoleARN {
			fmt.Fprintf(b, " (mapped as %s)", g.MappedARN)
		}
		b.WriteString("\n")
	}
	if g.Authenticates {
		fmt.Fprintf(b, "  authenticates as %s in [%s] via %s\n", g.Username, strings.Join(g.Groups, ", "), g.Via)
	}
	writeFindings(b, g.Findings)
}

func writeFindings(b *strings.Builder, fs []Finding) {
	for _, f := range fs {
		fmt.Fprintf(b, "  %-7s %s\n", strings.ToUpper(string(f.Severity)), f.Message)
	}
}

// WriteText writes the plan for people: the aws-auth diff, the access
// entries as AWS CLI commands, the migration preview and what it leaves.
func (p Plan) WriteText(w io.Writer, cluster, region string, dryRun bool) error {
	var b strings.Builder
	verb := "applied"
	if dryRun {
		verb = "would apply (dry run)"
	}
	if p.Empty() {
		b.WriteString("nothing to change for the node groups' mappings\n")
	}
	if m := p.Migration; m != nil {
		fmt.Fprintf(&b, "migration to access entries (%s):\n  aws eks update-cluster-config --name %s --access-config authenticationMode=%s%s\n",
			verb, cluster, m.To, regionFlag(region))
		for _, e := range m.FromAWSAuth {
			fmt.Fprintf(&b, "  %s   # from aws-auth\n", awsauth.AccessEntryCommand(cluster, region, e.PrincipalARN, e.Type == "EC2_WINDOWS"))
		}
		for _, h := range m.ByHand {
			fmt.Fprintf(&b, "  by hand: %s\n", h)
		}
		b.WriteString("  aws-auth keeps working in API_AND_CONFIG_MAP; switch to API once every entry above exists.\n")
	}
	if len(p.Entries) > 0 {
		fmt.Fprintf(&b, "access entries (%s):\n", verb)
		for _, e := range p.Entries {
			fmt.Fprintf(&b, "  %s\n", awsauth.AccessEntryCommand(cluster, region, e.PrincipalARN, e.Type == "EC2_WINDOWS"))
		}
	}
	if ch := p.AWSAuth; ch != nil {
		fmt.Fprintf(&b, "aws-auth (%s with server-side apply, field manager %s):\n%s", verb, FieldManager, ch.Diff())
		for _, s := range ch.Shadowed {
			fmt.Fprintf(&b, "note: %s\n", s)
		}
	}
	for _, u := range p.Unfixable {
		fmt.Fprintf(&b, "not fixed: %s\n", u)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func regionFlag(region string) string {
	if region == "" {
		return ""
	}
	return " --region " + region
}
