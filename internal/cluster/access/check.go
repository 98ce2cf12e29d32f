package access

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/awsauth"
)

// Finding is one problem found (awsauth's, so severities and codes agree).
type Finding = awsauth.Finding

// Report is the check's result.
type Report struct {
	Cluster ClusterReport `json:"cluster"`
	Groups  []GroupReport `json:"groups"`
}

// ClusterReport is what applies to every group.
type ClusterReport struct {
	Name string `json:"name"`
	// Mode is the authentication mode used for the check; ModeNote says
	// where it came from.
	Mode     string    `json:"authenticationMode"`
	ModeNote string    `json:"authenticationModeNote,omitempty"`
	Findings []Finding `json:"findings,omitempty"`
}

// GroupReport is one group's verdict: whether its nodes authenticate, as
// whom and through what, and whether they will join.
type GroupReport struct {
	Group
	// MappedARN is the ARN a mapping must name (the role without path).
	MappedARN     string   `json:"mappedARN,omitempty"`
	Authenticates bool     `json:"authenticates"`
	Username      string   `json:"username,omitempty"`
	Groups        []string `json:"groups,omitempty"`
	// Via is "aws-auth" or "access entry (TYPE)".
	Via      string    `json:"via,omitempty"`
	WillJoin bool      `json:"willJoin"`
	Findings []Finding `json:"findings,omitempty"`
	// Error is Group.Err as text.
	Error string `json:"error,omitempty"`
}

// Failed reports whether some group will not join or has an error.
func (r Report) Failed() bool {
	for _, g := range r.Groups {
		if !g.WillJoin || hasError(g.Findings) {
			return true
		}
	}
	return false
}

func hasError(fs []Finding) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool { return f.Severity == awsauth.SevError })
}

// Check judges every group against the cluster.
func Check(c Cluster, groups []Group) Report {
	m, problems := awsauth.Parse(c.AWSAuth)
	rep := Report{Cluster: clusterReport(c, problems)}
	for _, g := range groups {
		rep.Groups = append(rep.Groups, checkGroup(c, m, problems, g))
	}
	return rep
}

// effectiveMode is the mode the check assumes.
func effectiveMode(c Cluster) string {
	if c.Mode == "" {
		return ModeConfigMap
	}
	return c.Mode
}

func clusterReport(c Cluster, problems []awsauth.ParseProblem) ClusterReport {
	r := ClusterReport{Name: c.Name, Mode: effectiveMode(c)}
	if c.Mode == "" {
		r.ModeNote = "unknown (no EKS API answer"
		if c.ModeErr != nil {
			r.ModeNote += ": " + c.ModeErr.Error()
		}
		r.ModeNote += "); assumed CONFIG_MAP, where only aws-auth counts"
	}
	add := func(sev awsauth.Severity, code, format string, args ...any) {
		r.Findings = append(r.Findings, Finding{Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)})
	}
	if c.AWSAuthErr != nil {
		add(awsauth.SevError, "aws-auth-unreadable", "cannot read kube-system/aws-auth: %v", c.AWSAuthErr)
	}
	for _, p := range problems {
		if p.Lost {
			add(awsauth.SevError, "aws-auth-malformed", "aws-auth %s cannot be parsed (%v): the authenticator drops all of it, so every node mapped here is locked out", p.Key, p.Err)
			continue
		}
		add(awsauth.SevError, "aws-auth-entry-dropped", "aws-auth %s: the authenticator drops or changes this entry", p.Error())
	}
	if c.Mode == ModeAPI && len(c.AWSAuth[awsauth.KeyMapRoles]) > 0 {
		add(awsauth.SevWarning, "aws-auth-ignored", "the authentication mode is API: aws-auth is ignored, only access entries count")
	}
	if c.EntriesErr != nil {
		add(awsauth.SevError, "access-entries-unreadable", "cannot list access entries: %v", c.EntriesErr)
	}
	return r
}

// checkGroup judges one group.
func checkGroup(c Cluster, m awsauth.Map, problems []awsauth.ParseProblem, g Group) GroupReport {
	r := GroupReport{Group: g}
	if g.Err != nil {
		r.Error = g.Err.Error()
		r.add(awsauth.SevError, "unresolved", "cannot tell which role the group's nodes have: %v", g.Err)
		return r
	}
	role, ok := r.parseRole()
	if !ok {
		return r
	}
	r.MappedARN = role.Mapped()
	r.judgeMapping(c, m, problems, role)
	if g.Windows {
		r.Findings = append(r.Findings, windowsPrerequisites(c)...)
	}
	r.Findings = append(r.Findings, maxPodsFindings(c.CNI, g)...)
	r.WillJoin = r.Authenticates && !hasError(r.Findings)
	return r
}

func (r *GroupReport) add(sev awsauth.Severity, code, format string, args ...any) {
	r.Findings = append(r.Findings, Finding{Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)})
}

// parseRole reads the group's role ARN, catching an instance profile's.
func (r *GroupReport) parseRole() (awsauth.RoleARN, bool) {
	if awsauth.IsInstanceProfileARN(r.RoleARN) {
		r.add(awsauth.SevError, "instance-profile-arn", "%s is an instance profile's ARN, not its role's: map the role inside the profile", r.RoleARN)
		return awsauth.RoleARN{}, false
	}
	role, err := awsauth.ParseRoleARN(r.RoleARN)
	if err != nil {
		r.add(awsauth.SevError, "not-a-role", "%v", err)
		return awsauth.RoleARN{}, false
	}
	return role, true
}

// judgeMapping finds what the authenticator maps the role's sessions to:
// an access entry first when the mode has the API, aws-auth unless the
// mode is API.
func (r *GroupReport) judgeMapping(c Cluster, m awsauth.Map, problems []awsauth.ParseProblem, role awsauth.RoleARN) {
	mode := effectiveMode(c)
	if mode != ModeConfigMap {
		if e, ok := findEntry(c.Entries, role); ok {
			r.judgeEntry(e, role)
			return
		}
	}
	if mode == ModeAPI {
		r.add(awsauth.SevError, "unmapped", "no access entry for %s, and the authentication mode API ignores aws-auth: its nodes get 401 Unauthorized", r.MappedARN)
		return
	}
	r.judgeAWSAuth(m, problems, role)
}

// findEntry finds the access entry of a role; EKS keys entries by the
// principal ARN, compared here without the role's path.
func findEntry(entries []AccessEntry, role awsauth.RoleARN) (AccessEntry, bool) {
	for _, e := range entries {
		if r, err := awsauth.ParseRoleARN(e.PrincipalARN); err == nil && strings.EqualFold(r.Mapped(), role.Mapped()) {
			return e, true
		}
	}
	return AccessEntry{}, false
}

func (r *GroupReport) judgeEntry(e AccessEntry, role awsauth.RoleARN) {
	r.Via = "access entry (" + e.Type + ")"
	r.Authenticates = true
	switch e.Type {
	case "EC2_LINUX", "EC2_WINDOWS":
		// EKS sets the username and the node groups itself.
		r.Username = awsauth.NamePrivateDNS.UsernameTemplate()
		r.Groups = awsauth.NodeGroups(e.Type == "EC2_WINDOWS")
		if r.Windows != (e.Type == "EC2_WINDOWS") {
			r.add(awsauth.SevError, "entry-type", "the access entry's type is %s but the group's nodes run %s: use %s",
				e.Type, osName(r.Windows), awsauth.AccessEntryType(r.Windows))
		}
		if r.Naming == awsauth.NameInstanceID {
			r.add(awsauth.SevError, "username-template", "%s entries name nodes by EC2 private DNS name, but this group's nodes are named by instance ID: NodeRestriction refuses their Nodes", e.Type)
		}
	default:
		r.Username, r.Groups = e.Username, e.Groups
		r.Findings = append(r.Findings, awsauth.CheckNodeMapping(e.Username, e.Groups, r.Naming, r.Windows)...)
		r.add(awsauth.SevError, "entry-type", "a %s access entry cannot give the system:nodes group (EKS refuses system: groups there): replace it with an %s entry",
			e.Type, awsauth.AccessEntryType(r.Windows))
	}
	if role.Path != "/" && strings.Contains(e.PrincipalARN, role.Path) {
		r.add(awsauth.SevWarning, "path", "the access entry names the role with its path %s; sessions carry the ARN without it", role.Path)
	}
}

func osName(windows bool) string {
	if windows {
		return "Windows"
	}
	return "Linux"
}

// judgeAWSAuth looks the role up in aws-auth as the authenticator does and
// explains entries that look meant for it but never match. A mapRoles the
// authenticator cannot parse loses only mapRoles: it still maps the role
// through mapUsers and mapAccounts.
func (r *GroupReport) judgeAWSAuth(m awsauth.Map, problems []awsauth.ParseProblem, role awsauth.RoleARN) {
	r.nearMisses(m, role)
	username, groups, found := m.Lookup(r.MappedARN)
	if !found {
		r.judgeUnmapped(m, problems, role)
		return
	}
	r.Authenticates, r.Username, r.Groups, r.Via = true, username, groups, "aws-auth"
	r.Findings = append(r.Findings, awsauth.CheckNodeMapping(username, groups, r.Naming, r.Windows)...)
	r.duplicates(m)
}

// judgeUnmapped explains a role no aws-auth entry maps: mapRoles lost to a
// parse error, mapAccounts only, or no entry at all.
func (r *GroupReport) judgeUnmapped(m awsauth.Map, problems []awsauth.ParseProblem, role awsauth.RoleARN) {
	lost := slices.ContainsFunc(problems, func(p awsauth.ParseProblem) bool { return p.Key == awsauth.KeyMapRoles && p.Lost })
	if lost {
		r.add(awsauth.SevError, "aws-auth-malformed", "aws-auth mapRoles cannot be parsed: every node mapped there is locked out, this group's included")
	}
	switch {
	case m.AccountAllowed(role.Account):
		r.Authenticates, r.Username, r.Via = true, r.MappedARN, "aws-auth mapAccounts"
		r.add(awsauth.SevError, "account-only", "only mapAccounts lets account %s in: its nodes authenticate as their role ARN with no groups, not as nodes", role.Account)
	case !lost:
		r.add(awsauth.SevError, "unmapped", "%s is in no aws-auth entry: its nodes get 401 Unauthorized", r.MappedARN)
	}
}

// nearMisses reports entries naming the role with its path or naming the
// group's instance profile: the authenticator never matches them.
func (r *GroupReport) nearMisses(m awsauth.Map, role awsauth.RoleARN) {
	for _, e := range m.Roles {
		switch {
		case role.Path != "/" && strings.EqualFold(e.RoleARN, role.String()):
			r.add(awsauth.SevError, "path", "the entry for %s names the role with its path %s: the authenticator compares the ARN without it and never matches; use %s",
				e.RoleARN, role.Path, r.MappedARN)
		case r.InstanceProfileARN != "" && strings.EqualFold(e.RoleARN, r.InstanceProfileARN):
			r.add(awsauth.SevError, "instance-profile-arn", "an entry names the instance profile %s: the authenticator matches the role, %s", e.RoleARN, r.MappedARN)
		}
	}
}

// duplicates reports several entries for the role: the last one wins.
func (r *GroupReport) duplicates(m awsauth.Map) {
	var same []awsauth.RoleMapping
	for _, e := range m.Roles {
		if strings.EqualFold(e.RoleARN, r.MappedARN) {
			same = append(same, e)
		}
	}
	if len(same) < 2 {
		return
	}
	last := same[len(same)-1]
	for _, e := range same[:len(same)-1] {
		if e.Username != last.Username || !slices.Equal(e.Groups, last.Groups) {
			r.add(awsauth.SevWarning, "conflict", "%d aws-auth entries name %s with different usernames or groups; the authenticator uses the last one (%s, %s)",
				len(same), r.MappedARN, last.Username, strings.Join(last.Groups, ", "))
			return
		}
	}
	r.add(awsauth.SevWarning, "duplicate", "%d identical aws-auth entries name %s", len(same), r.MappedARN)
}
