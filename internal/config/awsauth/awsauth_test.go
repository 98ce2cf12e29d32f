package awsauth

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// The cases below follow the authenticator's behaviour in v0.6.30
// (pkg/arn, pkg/mapper/configmap, pkg/server renderTemplate); each names
// the behaviour it pins.

func TestCanonical(t *testing.T) {
	tests := []struct {
		name, arn string
		kind      PrincipalKind
		want      string
		wantErr   bool
	}{
		{name: "instance role session drops the session", arn: "arn:aws:sts::111122223333:assumed-role/nodes/i-0123456789abcdef0",
			kind: KindAssumedRole, want: "arn:aws:iam::111122223333:role/nodes"},
		{name: "session names may hold @", arn: "arn:aws:sts::111122223333:assumed-role/admins/jane@example.com",
			kind: KindAssumedRole, want: "arn:aws:iam::111122223333:role/admins"},
		{name: "china partition", arn: "arn:aws-cn:sts::111122223333:assumed-role/nodes/i-0abc1234",
			kind: KindAssumedRole, want: "arn:aws-cn:iam::111122223333:role/nodes"},
		{name: "role ARN kept with its path", arn: "arn:aws:iam::111122223333:role/eks/nodes", kind: KindRole, want: "arn:aws:iam::111122223333:role/eks/nodes"},
		{name: "user", arn: "arn:aws:iam::111122223333:user/jane", kind: KindUser, want: "arn:aws:iam::111122223333:user/jane"},
		{name: "root", arn: "arn:aws:iam::111122223333:root", kind: KindRoot, want: "arn:aws:iam::111122223333:root"},
		{name: "federated user", arn: "arn:aws:sts::111122223333:federated-user/bob", kind: KindFederatedUser, want: "arn:aws:sts::111122223333:federated-user/bob"},
		{name: "assumed role without session", arn: "arn:aws:sts::111122223333:assumed-role/nodes", wantErr: true},
		{name: "unknown partition", arn: "arn:aws-moon:iam::111122223333:role/nodes", wantErr: true},
		{name: "instance profile is no identity", arn: "arn:aws:iam::111122223333:instance-profile/nodes", wantErr: true},
		{name: "not an ARN", arn: "nodes", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			kind, got, err := Canonical(tc.arn)
			if (err != nil) != tc.wantErr || kind != tc.kind || got != tc.want {
				t.Errorf("Canonical(%q) = %v, %q, %v; want %v, %q, error %v", tc.arn, kind, got, err, tc.kind, tc.want, tc.wantErr)
			}
		})
	}
}

func TestRoleARN(t *testing.T) {
	r, err := ParseRoleARN("arn:aws:iam::111122223333:role/eks/prod/nodes")
	if err != nil {
		t.Fatal(err)
	}
	if r.Path != "/eks/prod/" || r.Name != "nodes" || r.Mapped() != "arn:aws:iam::111122223333:role/nodes" ||
		r.String() != "arn:aws:iam::111122223333:role/eks/prod/nodes" {
		t.Errorf("ParseRoleARN = %+v, mapped %s", r, r.Mapped())
	}
	for _, bad := range []string{"arn:aws:iam::111122223333:instance-profile/nodes", "arn:aws:iam::111122223333:role/", "arn:aws:sts::1:assumed-role/a/b"} {
		if _, err := ParseRoleARN(bad); err == nil {
			t.Errorf("ParseRoleARN(%q) accepted", bad)
		}
	}
	p, err := RoleFromInstanceProfile("arn:aws-us-gov:iam::111122223333:instance-profile/eks/nodes-profile", "nodes-role")
	if err != nil || p.Mapped() != "arn:aws-us-gov:iam::111122223333:role/nodes-role" {
		t.Errorf("RoleFromInstanceProfile = %+v, %v", p, err)
	}
	if !IsInstanceProfileARN("arn:aws:iam::111122223333:instance-profile/x") || IsInstanceProfileARN("arn:aws:iam::111122223333:role/x") {
		t.Error("IsInstanceProfileARN")
	}
}

func TestParse(t *testing.T) {
	const nodeRole = "arn:aws:iam::111122223333:role/nodes"
	tests := []struct {
		name      string
		data      map[string]string
		roles     int
		users     int
		accounts  []string
		problems  []string // substrings, one per problem, in order
		lostRoles bool
	}{
		{name: "node entry", data: map[string]string{KeyMapRoles: "- rolearn: " + nodeRole + "\n  username: system:node:{{EC2PrivateDNSName}}\n  groups:\n    - system:bootstrappers\n    - system:nodes\n"},
			roles: 1},
		{name: "placeholders are skipped", data: map[string]string{KeyMapRoles: "``", KeyMapUsers: `""`, KeyMapAccounts: "  "}},
		{name: "JSON is taken as JSON", data: map[string]string{KeyMapRoles: `{"rolearn":"x"}`}, problems: []string{"mapRoles: json: cannot unmarshal object"}, lostRoles: true},
		{name: "YAML error loses every role", data: map[string]string{
			KeyMapRoles: "- rolearn: " + nodeRole + "\n  username: system:node:{{EC2PrivateDNSName}}\n groups:\n    - system:nodes\n",
			KeyMapUsers: "- userarn: arn:aws:iam::111122223333:user/jane\n  username: jane\n"},
			users: 1, problems: []string{"mapRoles: yaml: line 2: did not find expected"}, lostRoles: true},
		{name: "a string where the list belongs loses every role", data: map[string]string{KeyMapRoles: "rolearn: " + nodeRole + "\n"},
			problems: []string{"mapRoles: json: cannot unmarshal object into Go value of type []awsauth.RoleMapping"}, lostRoles: true},
		{name: "groups as a string: the entry stays without groups", data: map[string]string{KeyMapRoles: "- rolearn: " + nodeRole + "\n  username: system:node:{{EC2PrivateDNSName}}\n  groups: system:nodes\n"},
			roles: 1, problems: []string{"field groups is a string"}},
		{name: "entry without rolearn is dropped, the rest kept", data: map[string]string{KeyMapRoles: "- username: x\n- rolearn: " + nodeRole + "\n  username: ops\n"},
			roles: 1, problems: []string{"mapRoles[0]: one of rolearn or sso must be supplied"}},
		{name: "rolearn and sso both set", data: map[string]string{KeyMapRoles: "- rolearn: " + nodeRole + "\n  sso: {permissionSetName: Admin, accountID: '111122223333'}\n  username: ops\n"},
			problems: []string{"only one of rolearn or sso"}},
		{name: "sso entry validated", data: map[string]string{KeyMapRoles: "- sso: {permissionSetName: Admin, accountID: '1234'}\n  username: ops\n"},
			problems: []string{"sso.accountID \"1234\""}},
		{name: "YAML 1.1 reads username y as a boolean: the entry stays without a username", data: map[string]string{KeyMapRoles: "- rolearn: " + nodeRole + "\n  username: y\n"},
			roles: 1, problems: []string{"field username is a bool"}},
		{name: "user without userarn", data: map[string]string{KeyMapUsers: "- username: x\n"}, problems: []string{"mapUsers[0]: value for userarn"}},
		{name: "accounts", data: map[string]string{KeyMapAccounts: "- \"111122223333\"\n- \"444455556666\"\n"}, accounts: []string{"111122223333", "444455556666"}},
		{name: "accounts unquoted", data: map[string]string{KeyMapAccounts: "- 111122223333\n"}, accounts: []string{"111122223333"}},
		{name: "account with a leading zero, unquoted", data: map[string]string{KeyMapAccounts: "- 012345678901\n"}, accounts: []string{"012345678901"}},
		{name: "accounts not a list", data: map[string]string{KeyMapAccounts: "a: b\n"}, problems: []string{"mapAccounts"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, problems := Parse(tc.data)
			if len(m.Roles) != tc.roles || len(m.Users) != tc.users || !slices.Equal(m.Accounts, tc.accounts) {
				t.Errorf("kept %d roles, %d users, accounts %q; want %d, %d, %q", len(m.Roles), len(m.Users), m.Accounts, tc.roles, tc.users, tc.accounts)
			}
			if len(problems) != len(tc.problems) {
				t.Fatalf("problems %v, want %d like %q", problems, len(tc.problems), tc.problems)
			}
			for i, p := range problems {
				if !strings.Contains(p.Error(), tc.problems[i]) {
					t.Errorf("problem %d = %q, want it to say %q", i, p.Error(), tc.problems[i])
				}
			}
			lost := slices.ContainsFunc(problems, func(p ParseProblem) bool { return p.Key == KeyMapRoles && p.Lost })
			if lost != tc.lostRoles {
				t.Errorf("mapRoles lost = %v, want %v", lost, tc.lostRoles)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	m, problems := Parse(map[string]string{
		KeyMapRoles: `- rolearn: arn:aws:iam::111122223333:role/eks/pathed
  username: pathed
- rolearn: arn:aws:iam::111122223333:role/Nodes
  username: first
- rolearn: arn:aws:iam::111122223333:role/nodes
  username: second
  groups: [system:nodes]
`,
		KeyMapUsers:    "- userarn: arn:aws:iam::111122223333:role/users-too\n  username: as-user\n",
		KeyMapAccounts: "- '444455556666'\n",
	})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	tests := []struct {
		name, arn, want string
		found           bool
	}{
		{name: "case-insensitive, the last entry wins", arn: "arn:aws:iam::111122223333:role/NODES", want: "second", found: true},
		{name: "a rolearn with a path never matches a session's canonical ARN", arn: "arn:aws:iam::111122223333:role/pathed"},
		{name: "users are looked up after roles", arn: "arn:aws:iam::111122223333:role/users-too", want: "as-user", found: true},
		{name: "unmapped", arn: "arn:aws:iam::111122223333:role/other"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, found := m.Lookup(tc.arn)
			if got != tc.want || found != tc.found {
				t.Errorf("Lookup = %q, %v; want %q, %v", got, found, tc.want, tc.found)
			}
		})
	}
	if !m.AccountAllowed("444455556666") || m.AccountAllowed("111122223333") {
		t.Error("AccountAllowed")
	}
}

func TestRender(t *testing.T) {
	dns := func(id string) (string, error) {
		if id == "i-0123456789abcdef0" {
			return "ip-10-0-0-5.us-west-2.compute.internal", nil
		}
		return "", errors.New("not found")
	}
	node := Session{AccountID: "111122223333", SessionName: "i-0123456789abcdef0", AccessKeyID: "ASIAX", PrivateDNSName: dns}
	person := Session{AccountID: "111122223333", SessionName: "jane@example.com", AccessKeyID: "ASIAY", PrivateDNSName: dns}
	tests := []struct {
		name, template string
		s              Session
		want           string
		wantErr        error
	}{
		{name: "private DNS name", template: "system:node:{{EC2PrivateDNSName}}", s: node, want: "system:node:ip-10-0-0-5.us-west-2.compute.internal"},
		{name: "session name is the instance ID", template: "system:node:{{SessionName}}", s: node, want: "system:node:i-0123456789abcdef0"},
		{name: "session name has @ replaced", template: "u:{{SessionName}}", s: person, want: "u:jane-example.com"},
		{name: "raw session name", template: "u:{{SessionNameRaw}}", s: person, want: "u:jane@example.com"},
		{name: "account and key", template: "{{AccountID}}/{{AccessKeyID}}", s: node, want: "111122223333/ASIAX"},
		{name: "private DNS name needs an instance session", template: "system:node:{{EC2PrivateDNSName}}", s: person, wantErr: ErrNotInstanceSession},
		{name: "unknown placeholder stays", template: "system:node:{{EC2PrivateDnsName}}", s: node, want: "system:node:{{EC2PrivateDnsName}}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Render(tc.template, tc.s)
			if got != tc.want || !errors.Is(err, tc.wantErr) {
				t.Errorf("Render = %q, %v; want %q, %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
	for template, want := range map[string][]string{
		"system:node:{{EC2PrivateDnsName}}-{{SessionName}}-{{x": {"{{EC2PrivateDnsName}}", "{{x"},
		"system:node:{{ EC2PrivateDNSName }}":                   {"{{ EC2PrivateDNSName }}"},
		// The authenticator renders these {i-…} and {{Session1111…Name}}:
		// no braces stay as written.
		"system:node:{{{SessionName}}}":            nil,
		"system:node:{{Session{{AccountID}}Name}}": nil,
	} {
		if got := UnknownPlaceholders(template); !slices.Equal(got, want) {
			t.Errorf("UnknownPlaceholders(%q) = %q, want %q", template, got, want)
		}
	}
	if !IsInstanceID("i-0123abcd") || IsInstanceID("i-0123") || !IsInstanceID("i-0123456789abcdef0") {
		t.Error("IsInstanceID")
	}
}

func TestCheckNodeMapping(t *testing.T) {
	both := []string{GroupBootstrappers, GroupNodes}
	tests := []struct {
		name     string
		username string
		groups   []string
		naming   NodeNaming
		windows  bool
		want     []string // "severity code" of each finding
	}{
		{name: "EKS's node entry", username: "system:node:{{EC2PrivateDNSName}}", groups: both},
		{name: "instance-ID names with SessionName", username: "system:node:{{SessionName}}", groups: both, naming: NameInstanceID},
		{name: "SessionName for DNS names", username: "system:node:{{SessionName}}", groups: both, want: []string{"error username-template"}},
		{name: "private DNS name for instance-ID names", username: "system:node:{{EC2PrivateDNSName}}", groups: both, naming: NameInstanceID, want: []string{"error username-template"}},
		{name: "typo in the placeholder", username: "system:node:{{EC2PrivateDnsName}}", groups: both, want: []string{"error unknown-placeholder"}},
		{name: "not a node user", username: "{{SessionName}}", groups: both, want: []string{"error username-not-node"}},
		{name: "no groups", username: "system:node:{{EC2PrivateDNSName}}", want: []string{"error group-missing", "warning group-missing"}},
		{name: "Windows without kube-proxy group", username: "system:node:{{EC2PrivateDNSName}}", groups: both, windows: true, want: []string{"error group-missing"}},
		{name: "Windows entry", username: "system:node:{{EC2PrivateDNSName}}", groups: NodeGroups(true), windows: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range CheckNodeMapping(tc.username, tc.groups, tc.naming, tc.windows) {
				got = append(got, string(f.Severity)+" "+f.Code)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNodeEntryRoundTrip(t *testing.T) {
	e := NodeEntryFor("arn:aws:iam::111122223333:role/win-nodes", true, NamePrivateDNS)
	m, problems := Parse(map[string]string{KeyMapRoles: e.YAML()})
	if len(problems) > 0 || len(m.Roles) != 1 {
		t.Fatalf("the entry's YAML does not parse back: %v\n%s", problems, e.YAML())
	}
	r := m.Roles[0]
	if r.RoleARN != e.RoleARN || r.Username != "system:node:{{EC2PrivateDNSName}}" || !slices.Equal(r.Groups, NodeGroups(true)) {
		t.Errorf("parsed back %+v", r)
	}
	if got := AccessEntryCommand("prod", "us-west-2", e.RoleARN, true); got !=
		"aws eks create-access-entry --cluster-name prod --principal-arn arn:aws:iam::111122223333:role/win-nodes --type EC2_WINDOWS --region us-west-2" {
		t.Errorf("AccessEntryCommand = %q", got)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("- rolearn: arn:aws:iam::1:role/x\n  username: a\n  groups: [b]\n", "- userarn: u\n", "- '1'\n")
	f.Add("{\"rolearn\": 1}", "[1, 2]", "a: b")
	f.Add("- rolearn: x\n groups:\n", "``", "")
	f.Fuzz(func(t *testing.T, roles, users, accounts string) {
		m, problems := Parse(map[string]string{KeyMapRoles: roles, KeyMapUsers: users, KeyMapAccounts: accounts})
		for _, r := range m.Roles {
			if err := r.Validate(); err != nil {
				t.Fatalf("kept an invalid role entry %+v: %v", r, err)
			}
		}
		for _, p := range problems {
			if p.Err == nil || p.Error() == "" {
				t.Fatalf("problem without an error: %+v", p)
			}
		}
	})
}
