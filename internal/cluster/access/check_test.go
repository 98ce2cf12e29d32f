package access

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/awsauth"
)

const (
	linuxRole = "arn:aws:iam::111122223333:role/linux-nodes"
	winRole   = "arn:aws:iam::111122223333:role/windows-nodes"
)

func nodeEntry(arn string, groups ...string) string {
	s := "- rolearn: " + arn + "\n  username: system:node:{{EC2PrivateDNSName}}\n  groups:\n"
	for _, g := range groups {
		s += "    - " + g + "\n"
	}
	return s
}

func readyCNI() CNI {
	return CNI{ConfigMap: map[string]string{"enable-windows-ipam": "true"}, ConfigMapFound: true, Env: map[string]string{}, DaemonSetFound: true}
}

func TestCheck(t *testing.T) {
	linux := Group{Name: "linux", Source: "--role", RoleARN: linuxRole}
	windows := Group{Name: "windows", Source: "--windows-role", RoleARN: winRole, Windows: true}
	both := []string{awsauth.GroupBootstrappers, awsauth.GroupNodes}
	tests := []struct {
		name     string
		cluster  Cluster
		group    Group
		willJoin bool
		via      string
		codes    []string // "severity code" of each finding, in order
	}{
		{name: "mapped as EKS documents", cluster: Cluster{AWSAuth: map[string]string{"mapRoles": nodeEntry(linuxRole, both...)}},
			group: linux, willJoin: true, via: "aws-auth"},
		{name: "unmapped", cluster: Cluster{AWSAuth: map[string]string{"mapRoles": nodeEntry(winRole, both...)}},
			group: linux, codes: []string{"error unmapped"}},
		{name: "missing groups", cluster: Cluster{AWSAuth: map[string]string{"mapRoles": nodeEntry(linuxRole)}},
			group: linux, via: "aws-auth", codes: []string{"error group-missing", "warning group-missing"}},
		{name: "malformed aws-auth locks everyone out", cluster: Cluster{AWSAuth: map[string]string{"mapRoles": nodeEntry(linuxRole, both...) + " bad: [\n"}},
			group: linux, codes: []string{"error aws-auth-malformed"}},
		{name: "malformed mapRoles: mapUsers still maps the role", cluster: Cluster{AWSAuth: map[string]string{"mapRoles": " bad: [\n",
			"mapUsers": strings.Replace(nodeEntry(linuxRole, both...), "rolearn", "userarn", 1)}},
			group: linux, willJoin: true, via: "aws-auth"},
		{name: "malformed mapRoles: mapAccounts still lets the account in", cluster: Cluster{AWSAuth: map[string]string{"mapRoles": " bad: [\n",
			"mapAccounts": "- \"111122223333\"\n"}}, group: linux, via: "aws-auth mapAccounts", codes: []string{"error aws-auth-malformed", "error account-only"}},
		{name: "role with a path is matched without it", cluster: Cluster{AWSAuth: map[string]string{"mapRoles": nodeEntry(linuxRole, both...)}},
			group: Group{Name: "p", RoleARN: "arn:aws:iam::111122223333:role/eks/linux-nodes"}, willJoin: true, via: "aws-auth"},
		{name: "entry with the path never matches", cluster: Cluster{AWSAuth: map[string]string{"mapRoles": nodeEntry("arn:aws:iam::111122223333:role/eks/linux-nodes", both...)}},
			group: Group{Name: "p", RoleARN: "arn:aws:iam::111122223333:role/eks/linux-nodes"}, codes: []string{"error path", "error unmapped"}},
		{name: "instance profile given", cluster: Cluster{}, group: Group{Name: "x", RoleARN: "arn:aws:iam::111122223333:instance-profile/p"},
			codes: []string{"error instance-profile-arn"}},
		{name: "conflicting duplicates: the last wins", cluster: Cluster{AWSAuth: map[string]string{"mapRoles": nodeEntry(linuxRole, both...) + nodeEntry(linuxRole, awsauth.GroupNodes)}},
			group: linux, via: "aws-auth", codes: []string{"warning group-missing", "warning conflict"}, willJoin: true},
		{name: "mode API ignores aws-auth", cluster: Cluster{Mode: ModeAPI, AWSAuth: map[string]string{"mapRoles": nodeEntry(linuxRole, both...)}},
			group: linux, codes: []string{"error unmapped"}},
		{name: "access entry wins in API_AND_CONFIG_MAP", cluster: Cluster{Mode: ModeAPIAndConfigMap, AWSAuth: map[string]string{"mapRoles": nodeEntry(linuxRole)},
			Entries: []AccessEntry{{PrincipalARN: linuxRole, Type: "EC2_LINUX"}}}, group: linux, willJoin: true, via: "access entry (EC2_LINUX)"},
		{name: "Linux entry for Windows nodes", cluster: Cluster{Mode: ModeAPI, LinuxNodes: 1, CNI: readyCNI(), Entries: []AccessEntry{{PrincipalARN: winRole, Type: "EC2_LINUX"}}},
			group: windows, via: "access entry (EC2_LINUX)", codes: []string{"error entry-type"}},
		{name: "STANDARD entry cannot make a node", cluster: Cluster{Mode: ModeAPI, Entries: []AccessEntry{{PrincipalARN: linuxRole, Type: "STANDARD", Username: "system:node:{{EC2PrivateDNSName}}"}}},
			group: linux, via: "access entry (STANDARD)", codes: []string{"error group-missing", "warning group-missing", "error entry-type"}},
		{name: "Windows without its group, its IPAM setting and a Linux node", cluster: Cluster{AWSAuth: map[string]string{"mapRoles": nodeEntry(winRole, both...)}},
			group: windows, via: "aws-auth", codes: []string{"error group-missing", "error windows-linux-node", "error windows-ipam"}},
		{name: "Windows ready", cluster: Cluster{LinuxNodes: 2, CNI: readyCNI(), AWSAuth: map[string]string{"mapRoles": nodeEntry(winRole, awsauth.NodeGroups(true)...)}},
			group: windows, via: "aws-auth", willJoin: true},
		{name: "Windows and unsupported CNI features", cluster: Cluster{LinuxNodes: 2, IPFamily: "ipv6", AWSAuth: map[string]string{"mapRoles": nodeEntry(winRole, awsauth.NodeGroups(true)...)},
			CNI: CNI{ConfigMap: map[string]string{"enable-windows-ipam": "true"}, Env: map[string]string{"ENABLE_POD_ENI": "true", "AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG": "true"}}},
			group: windows, via: "aws-auth", codes: []string{"error windows-pod-eni", "error windows-custom-networking", "error windows-ipv6"}},
		{name: "unresolved group", group: Group{Name: "asg", Err: errors.New("no launch template")}, codes: []string{"error unresolved"}},
		{name: "max pods over what custom networking allows", cluster: Cluster{AWSAuth: map[string]string{"mapRoles": nodeEntry(linuxRole, both...)},
			CNI: CNI{Env: map[string]string{"AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG": "true"}}},
			group: Group{Name: "m5", RoleARN: linuxRole, MaxPods: map[string]int32{"m5.large": 29}}, willJoin: true, via: "aws-auth", codes: []string{"warning max-pods-over"}},
		{name: "prefix delegation with the secondary-IP max pods", cluster: Cluster{AWSAuth: map[string]string{"mapRoles": nodeEntry(linuxRole, both...)},
			CNI: CNI{Env: map[string]string{"ENABLE_PREFIX_DELEGATION": "true", "WARM_PREFIX_TARGET": "1"}}},
			group: Group{Name: "m5", RoleARN: linuxRole, MaxPods: map[string]int32{"m5.large": 29}}, willJoin: true, via: "aws-auth", codes: []string{"warning max-pods-under"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := Check(tc.cluster, []Group{tc.group})
			g := rep.Groups[0]
			var codes []string
			for _, f := range g.Findings {
				codes = append(codes, string(f.Severity)+" "+f.Code)
			}
			if !slices.Equal(codes, tc.codes) || g.WillJoin != tc.willJoin || g.Via != tc.via {
				t.Errorf("findings %q, willJoin %v, via %q; want %q, %v, %q\n%s", codes, g.WillJoin, g.Via, tc.codes, tc.willJoin, tc.via, findingsText(g.Findings))
			}
			wantFailed := !tc.willJoin || slices.ContainsFunc(tc.codes, func(c string) bool { return strings.HasPrefix(c, "error") })
			if rep.Failed() != wantFailed {
				t.Errorf("Failed() = %v, want %v", rep.Failed(), wantFailed)
			}
		})
	}
}

func findingsText(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(string(f.Severity) + " " + f.Code + ": " + f.Message + "\n")
	}
	return b.String()
}

func TestClusterFindings(t *testing.T) {
	rep := Check(Cluster{Mode: ModeAPI, AWSAuth: map[string]string{"mapRoles": "- rolearn: x\n bad"}}, nil)
	text := findingsText(rep.Cluster.Findings)
	for _, want := range []string{"every node mapped here is locked out", "aws-auth is ignored"} {
		if !strings.Contains(text, want) {
			t.Errorf("cluster findings lack %q:\n%s", want, text)
		}
	}
	if rep := Check(Cluster{}, nil); rep.Cluster.Mode != ModeConfigMap || !strings.Contains(rep.Cluster.ModeNote, "assumed CONFIG_MAP") {
		t.Errorf("unknown mode: %+v", rep.Cluster)
	}
}

func TestReportText(t *testing.T) {
	c := Cluster{Name: "prod", Mode: ModeConfigMap, AWSAuth: map[string]string{"mapRoles": nodeEntry(linuxRole, awsauth.GroupBootstrappers, awsauth.GroupNodes)}}
	rep := Check(c, []Group{{Name: "linux", Source: "--role", RoleARN: "arn:aws:iam::111122223333:role/eks/linux-nodes"}, {Name: "win", Source: "--windows-role", RoleARN: winRole, Windows: true}})
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"cluster prod: authentication mode CONFIG_MAP\n",
		"node group linux (--role, Linux): will join\n  role arn:aws:iam::111122223333:role/eks/linux-nodes (mapped as " + linuxRole + ")\n" +
			"  authenticates as system:node:{{EC2PrivateDNSName}} in [system:bootstrappers, system:nodes] via aws-auth\n",
		"node group win (--windows-role, Windows): WILL NOT JOIN\n",
		"  ERROR   " + winRole + " is in no aws-auth entry: its nodes get 401 Unauthorized\n",
		"1 of 2 node groups will join.\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

// TestRoleGroupTakesSessionARNs: --role given a node's session ARN (what
// `aws sts get-caller-identity` prints on it) checks its role, as the
// authenticator canonicalises the session.
func TestRoleGroupTakesSessionARNs(t *testing.T) {
	both := []string{awsauth.GroupBootstrappers, awsauth.GroupNodes}
	c := Cluster{AWSAuth: map[string]string{"mapRoles": nodeEntry(linuxRole, both...)}}
	tests := []struct {
		name, arn string
		willJoin  bool
		code      string
	}{
		{name: "role ARN", arn: linuxRole, willJoin: true},
		{name: "session ARN", arn: "arn:aws:sts::111122223333:assumed-role/linux-nodes/i-0123456789abcdef0", willJoin: true},
		{name: "session ARN in GovCloud", arn: "arn:aws-us-gov:sts::111122223333:assumed-role/linux-nodes/i-0123456789abcdef0", code: "unmapped"},
		{name: "session ARN without a session", arn: "arn:aws:sts::111122223333:assumed-role/linux-nodes", code: "not-a-role"},
		{name: "STS never writes paths", arn: "arn:aws:sts::111122223333:assumed-role/eks/linux-nodes/i-0123456789abcdef0", code: "not-a-role"},
		{name: "federated user", arn: "arn:aws:sts::111122223333:federated-user/bob", code: "not-a-role"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := Check(c, []Group{RoleGroup(tc.arn, false)}).Groups[0]
			if g.WillJoin != tc.willJoin || g.Name != tc.arn {
				t.Errorf("%s: name %q, will join %v, want %v (findings %v)", tc.arn, g.Name, g.WillJoin, tc.willJoin, g.Findings)
			}
			if tc.code != "" && !slices.ContainsFunc(g.Findings, func(f Finding) bool { return f.Code == tc.code }) {
				t.Errorf("%s: findings %v, want %s", tc.arn, g.Findings, tc.code)
			}
		})
	}
}
