//go:build oracle

package oracle

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/awsauth"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// tplMapping is one aws-auth mapping whose username and groups are
// templates: each is mapped once as a role (mapRoles) and once as a user
// (mapUsers), named after its index.
type tplMapping struct {
	name     string
	username string
	groups   []string
}

var tplMappings = []tplMapping{
	{name: "EKS's node entry", username: "system:node:{{EC2PrivateDNSName}}", groups: []string{"system:bootstrappers", "system:nodes"}},
	{name: "nodes named by instance ID", username: "system:node:{{SessionName}}", groups: []string{"system:bootstrappers", "system:nodes"}},
	{name: "raw session name", username: "system:node:{{SessionNameRaw}}", groups: []string{"system:nodes"}},
	{name: "account and access key", username: "{{AccountID}}:{{AccessKeyID}}", groups: []string{"system:nodes"}},
	{name: "every placeholder twice", username: "{{SessionName}}/{{SessionName}}/{{EC2PrivateDNSName}}/{{EC2PrivateDNSName}}/{{SessionNameRaw}}{{SessionNameRaw}}/{{AccountID}}{{AccountID}}"},
	{name: "unknown placeholder (case)", username: "system:node:{{EC2PrivateDnsName}}", groups: []string{"system:nodes"}},
	{name: "unknown placeholder", username: "system:node:{{InstanceID}}", groups: []string{"system:nodes"}},
	{name: "spaces inside braces", username: "system:node:{{ EC2PrivateDNSName }}", groups: []string{"system:nodes"}},
	{name: "single braces", username: "system:node:{EC2PrivateDNSName}", groups: []string{"system:nodes"}},
	{name: "triple braces", username: "system:node:{{{SessionName}}}", groups: []string{"system:nodes"}},
	{name: "quadruple braces", username: "system:node:{{{{SessionName}}}}", groups: []string{"system:nodes"}},
	{name: "placeholder inside unknown braces", username: "system:node:{{Session{{AccountID}}Name}}", groups: []string{"system:nodes"}},
	{name: "unterminated placeholder", username: "system:node:{{SessionName", groups: []string{"system:nodes"}},
	{name: "lower-case placeholder", username: "system:node:{{sessionname}}", groups: []string{"system:nodes"}},
	{name: "templates in groups", username: "tenant", groups: []string{"t:{{AccountID}}", "s:{{SessionName}}", "{{SessionNameRaw}}", "k:{{AccessKeyID}}", "{{Unknown}}"}},
	{name: "private DNS name in a group only", username: "system:node:{{SessionName}}", groups: []string{"system:nodes", "dns:{{EC2PrivateDNSName}}"}},
	{name: "no template", username: "operator", groups: []string{"system:masters"}},
	{name: "empty username", username: "", groups: []string{"system:nodes"}},
	{name: "suffix after the name", username: "system:node:{{EC2PrivateDNSName}}.local", groups: []string{"system:nodes"}},
}

// The instances EC2 knows: their private DNS names (what
// {{EC2PrivateDNSName}} resolves to).
const (
	instanceLong     = "i-0123456789abcdef0"
	instanceShort    = "i-0a1b2c3d"
	instanceResource = "i-0fedcba9876543210"
	instanceUnknown  = "i-0000000000000dead"
	sessionCapitalI  = "I-0123456789ABCDEF0"
)

var tplInstances = []awstest.Instance{
	{ID: instanceLong, PrivateDNSName: "ip-10-0-0-5.us-west-2.compute.internal"},
	{ID: instanceShort, PrivateDNSName: "ip-10-0-0-6.us-west-2.compute.internal"},
	{ID: instanceResource, PrivateDNSName: instanceResource + ".us-west-2.compute.internal", HostnameType: "resource-name"},
}

// tplIdentity is a caller: a session of the mapping's role named session,
// or (user) the mapping's IAM user. A session name with %d gets the
// mapping's index: an instance of its own per mapping.
type tplIdentity struct {
	name    string
	session string
	user    bool
	// noDNS: the instance (of its own per mapping) has no private DNS name.
	noDNS bool
}

var tplIdentities = []tplIdentity{
	{name: "node, 17-character instance ID", session: instanceLong},
	{name: "node, 8-character instance ID", session: instanceShort},
	{name: "node named by resource name", session: instanceResource},
	{name: "instance without a private DNS name", session: "i-00000000000000%03d", noDNS: true},
	{name: "instance EC2 does not know", session: instanceUnknown},
	{name: "instance ID in upper case", session: "i-0123456789ABCDEF0"},
	{name: "session name like an instance ID, one character too long", session: instanceLong + "1"},
	{name: "session name with an I-", session: sessionCapitalI},
	{name: "person, session name with @", session: "jane@example.com"},
	{name: "session name with = , . - _ +", session: "build=7,run.2-a_b+c"},
	{name: "session name with two @", session: "a@b@c"},
	{name: "IAM user", user: true},
}

func tplName(i int) string { return fmt.Sprintf("oracle-tpl-%02d", i) }

// tplAWSAuth maps every template as role and as user (JSON is YAML).
func tplAWSAuth() map[string]string {
	var roles, users []map[string]any
	for i, m := range tplMappings {
		roles = append(roles, map[string]any{"rolearn": "arn:aws:iam::" + tplAccount + ":role/" + tplName(i), "username": m.username, "groups": m.groups})
		users = append(users, map[string]any{"userarn": "arn:aws:iam::" + tplAccount + ":user/" + tplName(i), "username": m.username, "groups": m.groups})
	}
	r, _ := json.Marshal(roles)
	u, _ := json.Marshal(users)
	return map[string]string{"mapRoles": string(r), "mapUsers": string(u)}
}

// principal is the caller id is for mapping i; session is its session name
// ("" for a user, as the authenticator has it).
func (id tplIdentity) principal(i int) (p awstest.Principal, session string) {
	if id.user {
		return awstest.Principal{AccessKeyID: fmt.Sprintf("AKIAORACLEUSER%06d", i), SecretAccessKey: fmt.Sprintf("user-secret-%d", i),
			ARN: "arn:aws:iam::" + tplAccount + ":user/" + tplName(i), UserID: fmt.Sprintf("AIDAORACLEUSER%07d", i), Account: tplAccount}, ""
	}
	session = id.session
	if id.noDNS {
		session = fmt.Sprintf(id.session, i)
	}
	return awstest.AssumedRole(tplAccount, tplName(i), session), session
}

// errNoPrivateDNSName is what nodeboot's model of DescribeInstances says
// for an instance without a private DNS name.
var errNoPrivateDNSName = errors.New("the instance has no private DNS name")

// tplDNS is nodeboot's side of DescribeInstances: the instances EC2 knows.
func tplDNS(noDNS map[string]bool) func(string) (string, error) {
	return func(id string) (string, error) {
		if noDNS[id] {
			return "", errNoPrivateDNSName
		}
		for _, in := range tplInstances {
			if in.ID == id {
				return in.PrivateDNSName, nil
			}
		}
		return "", fmt.Errorf("InvalidInstanceID.NotFound: %s", id)
	}
}

// predictReview is what nodeboot says the authenticator answers: the
// mapping awsauth looks up for the caller's canonical ARN, rendered by
// awsauth.Render; any rendering error denies.
func predictReview(m awsauth.Map, p awstest.Principal, session string, dns func(string) (string, error)) review {
	_, canonical, err := awsauth.Canonical(p.ARN)
	if err != nil {
		return review{}
	}
	username, groups, found := m.Lookup(canonical)
	if !found {
		return review{}
	}
	s := awsauth.Session{AccountID: p.Account, SessionName: session, AccessKeyID: p.AccessKeyID, PrivateDNSName: dns}
	u, err := awsauth.Render(username, s)
	if err != nil {
		return review{}
	}
	rendered := []string{}
	for _, g := range groups {
		r, err := awsauth.Render(g, s)
		if err != nil {
			return review{}
		}
		rendered = append(rendered, r)
	}
	return review{Authenticated: true, Username: u, Groups: rendered}
}

// sameReview compares who two answers authenticate (no groups as none).
func sameReview(a, b review) bool {
	return a.Authenticated == b.Authenticated && a.Username == b.Username &&
		(slices.Equal(a.Groups, b.Groups) || len(a.Groups)+len(b.Groups) == 0)
}

// compareVerdicts: for a node's session (an instance whose private DNS
// name EC2 knows), `nodeboot access check` (awsauth.CheckNodeMapping on the
// mapping's templates) says nodes named each way join exactly when the
// server authenticates the session as system:node:<that name> in
// system:nodes.
func compareVerdicts(t *testing.T, m tplMapping, instance string, got review) {
	t.Helper()
	dns, _ := tplDNS(nil)(instance)
	for naming, name := range map[awsauth.NodeNaming]string{awsauth.NamePrivateDNS: dns, awsauth.NameInstanceID: instance} {
		findings := awsauth.CheckNodeMapping(m.username, m.groups, naming, false)
		nodeboot := !slices.ContainsFunc(findings, func(f awsauth.Finding) bool { return f.Severity == awsauth.SevError })
		real := got.Authenticated && got.Username == awsauth.NodeUserPrefix+name && slices.Contains(got.Groups, awsauth.GroupNodes)
		if nodeboot != real {
			t.Errorf("nodes named by %s (%s): authenticator gives %v (joins: %v); access check says joins: %v (findings %v)",
				naming, name, got, real, nodeboot, findings)
		}
	}
}

// compareUnknown: what awsauth.UnknownPlaceholders says stays literally in
// a template is in the name the authenticator rendered from it, and a
// rendered name with "{{" left in it had something reported.
func compareUnknown(t *testing.T, template, rendered string) {
	t.Helper()
	unknown := awsauth.UnknownPlaceholders(template)
	for _, u := range unknown {
		if !strings.Contains(rendered, u) {
			t.Errorf("template %q: nodeboot says %q stays literally, the authenticator renders %q", template, u, rendered)
		}
	}
	// Braces around a replaced placeholder are not reported.
	known := slices.ContainsFunc([]string{awsauth.TplEC2PrivateDNSName, awsauth.TplSessionName, awsauth.TplSessionNameRaw, awsauth.TplAccountID, awsauth.TplAccessKeyID},
		func(p string) bool { return strings.Contains(template, p) })
	if len(unknown) == 0 && !known && strings.Contains(rendered, "{{") {
		t.Errorf("template %q: nodeboot reports no unknown placeholder, the authenticator renders %q", template, rendered)
	}
}
