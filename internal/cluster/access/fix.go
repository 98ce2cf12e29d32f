package access

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/awsauth"
)

// How the fix maps node roles.
const (
	ViaAuto          = "auto"
	ViaAWSAuth       = "aws-auth"
	ViaAccessEntries = "access-entries"
)

// identityCodes are the findings a node-role mapping fixes.
var identityCodes = []string{"unmapped", "group-missing", "username-template", "username-not-node", "unknown-placeholder",
	"path", "account-only", "instance-profile-arn", "aws-auth-malformed"}

// Plan is the smallest change that lets the groups join.
type Plan struct {
	// Via is ViaAWSAuth or ViaAccessEntries.
	Via string `json:"via"`
	// AWSAuth is the new mapRoles (nil when aws-auth is not changed).
	AWSAuth *AWSAuthChange `json:"awsAuth,omitempty"`
	// Entries are the access entries to create.
	Entries []AccessEntry `json:"accessEntries,omitempty"`
	// Migration is set when access entries need the mode switched first.
	Migration *Migration `json:"migration,omitempty"`
	// Unfixable are problems the fix does not touch, per group.
	Unfixable []string `json:"unfixable,omitempty"`
}

// Empty reports whether the plan changes nothing.
func (p Plan) Empty() bool {
	return p.AWSAuth == nil && len(p.Entries) == 0 && p.Migration == nil
}

// AWSAuthChange appends node entries to mapRoles, keeping every byte of
// what is there.
type AWSAuthChange struct {
	Create bool                `json:"create"`
	Before string              `json:"before"`
	After  string              `json:"after"`
	Added  []awsauth.NodeEntry `json:"added"`
	// Shadowed notes earlier entries for the same roles that the added
	// ones override (the last entry wins); they are left as they are.
	Shadowed []string `json:"shadowed,omitempty"`
}

// Migration moves a CONFIG_MAP cluster to access entries, as `eksctl utils
// migrate-to-access-entry` does: the mode becomes API_AND_CONFIG_MAP (aws-auth
// keeps working), node roles mapped in aws-auth get EC2 entries, and what
// cannot move is listed.
type Migration struct {
	To string `json:"to"`
	// FromAWSAuth are entries for node roles already in aws-auth.
	FromAWSAuth []AccessEntry `json:"fromAWSAuth,omitempty"`
	// ByHand are aws-auth entries an access entry cannot express.
	ByHand []string `json:"byHand,omitempty"`
}

// ErrUnparsable is returned when aws-auth cannot be parsed: the fix never
// edits it then.
var ErrUnparsable = errors.New("aws-auth cannot be parsed; nodeboot access fix does not edit a ConfigMap it cannot read")

// PlanFix plans the change for the groups of a report. via is ViaAuto
// (access entries when the mode has the API, else aws-auth), ViaAWSAuth
// or ViaAccessEntries (with a migration when the mode is CONFIG_MAP).
func PlanFix(c Cluster, rep Report, via string) (Plan, error) {
	mode := effectiveMode(c)
	p := Plan{Via: via}
	if via == ViaAuto {
		p.Via = ViaAWSAuth
		if mode != ModeConfigMap {
			p.Via = ViaAccessEntries
		}
	}
	if p.Via == ViaAWSAuth && mode == ModeAPI {
		return p, errors.New("the authentication mode is API: aws-auth is ignored; use --via access-entries")
	}
	need := p.collect(rep)
	if len(need) == 0 {
		return p, nil
	}
	if p.Via == ViaAccessEntries {
		return p.planEntries(c, need)
	}
	change, err := planAWSAuth(c, need)
	p.AWSAuth = change
	return p, err
}

// collect returns the groups whose role mapping must change and notes the
// problems the fix leaves.
func (p *Plan) collect(rep Report) []GroupReport {
	var need []GroupReport
	for _, g := range rep.Groups {
		fixable := false
		for _, f := range g.Findings {
			switch {
			case f.Severity != awsauth.SevError:
			case slices.Contains(identityCodes, f.Code) && g.MappedARN != "":
				fixable = true
			case f.Code == "entry-type":
				p.Unfixable = append(p.Unfixable, g.Name+": "+f.Message+" (delete the entry first: aws eks delete-access-entry --cluster-name CLUSTER --principal-arn "+g.MappedARN+")")
			default:
				p.Unfixable = append(p.Unfixable, g.Name+": "+f.Message)
			}
		}
		if fixable {
			need = append(need, g)
		}
	}
	return need
}

// planEntries creates EC2 access entries, with a migration first when the
// mode is CONFIG_MAP.
func (p Plan) planEntries(c Cluster, need []GroupReport) (Plan, error) {
	if effectiveMode(c) == ModeConfigMap {
		p.Migration = planMigration(c)
	}
	for _, g := range need {
		if g.Naming == awsauth.NameInstanceID {
			p.Unfixable = append(p.Unfixable, g.Name+": EC2 access entries name nodes by private DNS name; nodes named by instance ID need aws-auth (--via aws-auth)")
			continue
		}
		e := AccessEntry{PrincipalARN: g.MappedARN, Type: awsauth.AccessEntryType(g.Windows)}
		if !slices.ContainsFunc(p.Entries, func(x AccessEntry) bool { return strings.EqualFold(x.PrincipalARN, e.PrincipalARN) }) {
			p.Entries = append(p.Entries, e)
		}
	}
	if m := p.Migration; m != nil {
		// A group's own entry (its OS known) replaces the copy of its
		// aws-auth entry: a principal has one access entry.
		m.FromAWSAuth = slices.DeleteFunc(m.FromAWSAuth, func(x AccessEntry) bool {
			return slices.ContainsFunc(p.Entries, func(e AccessEntry) bool { return strings.EqualFold(e.PrincipalARN, x.PrincipalARN) })
		})
	}
	return p, nil
}

// planMigration turns aws-auth's node entries into EC2 access entries and
// lists the entries that cannot move.
func planMigration(c Cluster) *Migration {
	m := &Migration{To: ModeAPIAndConfigMap}
	parsed, _ := awsauth.Parse(c.AWSAuth)
	for _, r := range parsed.Roles {
		windows := slices.Contains(r.Groups, awsauth.GroupKubeProxyWindows)
		isNode := r.Username == awsauth.NamePrivateDNS.UsernameTemplate() && slices.Contains(r.Groups, awsauth.GroupNodes)
		role, err := awsauth.ParseRoleARN(r.RoleARN)
		switch {
		case isNode && err == nil:
			m.FromAWSAuth = append(m.FromAWSAuth, AccessEntry{PrincipalARN: role.Mapped(), Type: awsauth.AccessEntryType(windows)})
		case slices.ContainsFunc(r.Groups, func(g string) bool { return strings.HasPrefix(g, "system:") }):
			m.ByHand = append(m.ByHand, fmt.Sprintf("%s (%s in %s): an access entry cannot give system: groups; keep it in aws-auth, or bind its permissions with an access policy",
				r.RoleARN, r.Username, strings.Join(r.Groups, ", ")))
		default:
			m.ByHand = append(m.ByHand, fmt.Sprintf("%s: a STANDARD entry with username %q and groups %q", r.RoleARN, r.Username, strings.Join(r.Groups, ", ")))
		}
	}
	return m
}

// planAWSAuth appends the node entries the groups need, leaving every
// entry already there as it is.
func planAWSAuth(c Cluster, need []GroupReport) (*AWSAuthChange, error) {
	parsed, problems := awsauth.Parse(c.AWSAuth)
	if slices.ContainsFunc(problems, func(p awsauth.ParseProblem) bool { return p.Lost }) {
		return nil, ErrUnparsable
	}
	before := c.AWSAuth[awsauth.KeyMapRoles]
	ch := &AWSAuthChange{Create: !c.AWSAuthFound, Before: before}
	var add strings.Builder
	for _, g := range need {
		if slices.ContainsFunc(ch.Added, func(e awsauth.NodeEntry) bool { return e.RoleARN == g.MappedARN }) {
			continue
		}
		e := awsauth.NodeEntryFor(g.MappedARN, g.Windows, g.Naming)
		ch.Added = append(ch.Added, e)
		add.WriteString(e.YAML())
		if _, _, found := parsed.Lookup(g.MappedARN); found {
			ch.Shadowed = append(ch.Shadowed, fmt.Sprintf("the earlier entry for %s stays but no longer counts (the last entry wins); remove it when convenient", g.MappedARN))
		}
	}
	ch.After = appendYAMLList(before, add.String())
	return ch, ch.verify()
}

// appendYAMLList appends block-list items to a YAML list text, indented
// like its first item.
func appendYAMLList(list, items string) string {
	switch strings.TrimSpace(list) {
	case "", "``", `""`, "''", "[]":
		return items
	}
	indent := ""
	for _, line := range strings.Split(list, "\n") {
		if t := strings.TrimLeft(line, " "); strings.HasPrefix(t, "- ") {
			indent = line[:len(line)-len(t)]
			break
		}
	}
	if !strings.HasSuffix(list, "\n") {
		list += "\n"
	}
	lines := strings.SplitAfter(items, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = indent + l
		}
	}
	return list + strings.Join(lines, "")
}

// verify checks the new mapRoles the way the authenticator will read it:
// it parses, and each added entry is what the role maps to.
func (ch *AWSAuthChange) verify() error {
	m, problems := awsauth.Parse(map[string]string{awsauth.KeyMapRoles: ch.After})
	for _, p := range problems {
		if p.Lost {
			return fmt.Errorf("the planned mapRoles would not parse (%v); aws-auth is left alone", p.Err)
		}
	}
	for _, e := range ch.Added {
		if u, groups, ok := m.Lookup(e.RoleARN); !ok || u != e.Username || !slices.Equal(groups, e.Groups) {
			return fmt.Errorf("the planned mapRoles would not map %s as intended; aws-auth is left alone", e.RoleARN)
		}
	}
	return nil
}
