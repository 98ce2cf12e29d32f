//go:build oracle

package oracle

import "testing"

const (
	acct     = "111122223333"
	nodeRole = "arn:aws:iam::111122223333:role/NodeInstanceRole"
	// nodeEntry is EKS's documented entry for nodeRole.
	nodeEntry = "- rolearn: arn:aws:iam::111122223333:role/NodeInstanceRole\n  username: system:node:{{EC2PrivateDNSName}}\n  groups:\n    - system:bootstrappers\n    - system:nodes\n"
)

// awsAuthCases are realistic and tricky aws-auth ConfigMaps, each checked
// against the authenticator by TestAWSAuthAgreesWithAuthenticator.
var awsAuthCases = map[string]awsAuthCase{
	"node entry":               {data: map[string]string{"mapRoles": nodeEntry}, roles: []string{nodeRole}},
	"no aws-auth":              {roles: []string{nodeRole}},
	"empty aws-auth":           {data: map[string]string{}, roles: []string{nodeRole}},
	"placeholders are skipped": {data: map[string]string{"mapRoles": "''", "mapUsers": `""`, "mapAccounts": "``"}, roles: []string{nodeRole}},
	"whitespace only":          {data: map[string]string{"mapRoles": " \n\t\n"}, roles: []string{nodeRole}},
	"role given with its path": {data: map[string]string{"mapRoles": nodeEntry},
		roles: []string{"arn:aws:iam::111122223333:role/eks/nodes/NodeInstanceRole"}},
	"entry names the role with its path": {
		data:  map[string]string{"mapRoles": "- rolearn: arn:aws:iam::111122223333:role/eks/NodeInstanceRole\n  username: system:node:{{EC2PrivateDNSName}}\n  groups: [system:nodes]\n"},
		roles: []string{"arn:aws:iam::111122223333:role/eks/NodeInstanceRole", nodeRole}},
	"service-linked path": {
		data:  map[string]string{"mapRoles": "- rolearn: arn:aws:iam::111122223333:role/aws-service-role/eks-nodegroup.amazonaws.com/AWSServiceRoleForAmazonEKSNodegroup\n  username: x\n"},
		roles: []string{"arn:aws:iam::111122223333:role/aws-service-role/eks-nodegroup.amazonaws.com/AWSServiceRoleForAmazonEKSNodegroup"}},
	"case differs": {
		data:  map[string]string{"mapRoles": "- rolearn: ARN:AWS:IAM::111122223333:ROLE/nodeinstancerole\n  username: system:node:{{EC2PrivateDNSName}}\n  groups: [system:nodes]\n"},
		roles: []string{nodeRole}},
	"duplicate entries, last wins": {
		data:  map[string]string{"mapRoles": nodeEntry + "- rolearn: arn:aws:iam::111122223333:role/nodeinstancerole\n  username: system:node:{{SessionName}}\n  groups: [system:nodes]\n"},
		roles: []string{nodeRole}},
	"mapRoles as JSON": {
		data:  map[string]string{"mapRoles": `[{"rolearn":"arn:aws:iam::111122223333:role/NodeInstanceRole","username":"system:node:{{EC2PrivateDNSName}}","groups":["system:bootstrappers","system:nodes"]}]`},
		roles: []string{nodeRole}},
	"mapRoles as one JSON object": {
		data:  map[string]string{"mapRoles": `{"rolearn":"arn:aws:iam::111122223333:role/NodeInstanceRole","username":"u"}`},
		roles: []string{nodeRole}},
	"mapRoles as a mapping": {
		data:  map[string]string{"mapRoles": "rolearn: arn:aws:iam::111122223333:role/NodeInstanceRole\nusername: u\n"},
		roles: []string{nodeRole}},
	"bad indentation": {
		data:  map[string]string{"mapRoles": "- rolearn: arn:aws:iam::111122223333:role/NodeInstanceRole\n username: u\n  groups: [a]\n"},
		roles: []string{nodeRole}},
	"tab indentation": {
		data:  map[string]string{"mapRoles": "- rolearn: arn:aws:iam::111122223333:role/NodeInstanceRole\n\tusername: u\n"},
		roles: []string{nodeRole}},
	"groups as a string": {
		data:  map[string]string{"mapRoles": "- rolearn: arn:aws:iam::111122223333:role/NodeInstanceRole\n  username: system:node:{{EC2PrivateDNSName}}\n  groups: system:nodes\n"},
		roles: []string{nodeRole}},
	"groups with a number": {
		data:  map[string]string{"mapRoles": "- rolearn: arn:aws:iam::111122223333:role/NodeInstanceRole\n  username: u\n  groups: [system:nodes, 42]\n"},
		roles: []string{nodeRole}},
	"username missing": {
		data:  map[string]string{"mapRoles": "- rolearn: arn:aws:iam::111122223333:role/NodeInstanceRole\n  groups: [system:nodes]\n"},
		roles: []string{nodeRole}},
	"rolearn missing": {
		data:  map[string]string{"mapRoles": "- username: u\n  groups: [system:nodes]\n" + nodeEntry},
		roles: []string{nodeRole}},
	"rolearn and sso": {
		data:  map[string]string{"mapRoles": "- rolearn: arn:aws:iam::111122223333:role/NodeInstanceRole\n  sso: {permissionSetName: Admin, accountID: \"111122223333\"}\n  username: u\n"},
		roles: []string{nodeRole}},
	"sso entries": {
		data: map[string]string{"mapRoles": "- sso: {permissionSetName: Admin, accountID: \"111122223333\"}\n  username: admin\n" +
			"- sso: {permissionSetName: Admin, accountID: \"1111\"}\n  username: bad\n- sso: {permissionSetName: Admin, accountID: \"111122223333\", partition: aws-eusc}\n  username: bad\n" + nodeEntry},
		roles:      []string{nodeRole},
		principals: []string{"arn:aws:sts::111122223333:assumed-role/AWSReservedSSO_Admin_0123456789abcdef/jane"}},
	"unknown keys": {
		data:  map[string]string{"mapRoles": "- rolearn: arn:aws:iam::111122223333:role/NodeInstanceRole\n  username: system:node:{{EC2PrivateDNSName}}\n  groups: [system:nodes]\n  Username: other\n  extra: 1\n", "mapGroups": "junk: ["},
		roles: []string{nodeRole}},
	"quoted trailing whitespace": {
		data:  map[string]string{"mapRoles": "- rolearn: \"arn:aws:iam::111122223333:role/NodeInstanceRole \"\n  username: u\n"},
		roles: []string{nodeRole}},
	"plain trailing whitespace": {
		data:  map[string]string{"mapRoles": "- rolearn: arn:aws:iam::111122223333:role/NodeInstanceRole   \n  username: u   \n"},
		roles: []string{nodeRole}},
	"instance profile mapped": {
		data:  map[string]string{"mapRoles": "- rolearn: arn:aws:iam::111122223333:instance-profile/NodeInstanceRole\n  username: system:node:{{EC2PrivateDNSName}}\n"},
		roles: []string{nodeRole, "arn:aws:iam::111122223333:instance-profile/NodeInstanceRole"}},
	"role in mapUsers": {
		data:  map[string]string{"mapUsers": "- userarn: arn:aws:iam::111122223333:role/NodeInstanceRole\n  username: system:node:{{EC2PrivateDNSName}}\n  groups: [system:nodes]\n"},
		roles: []string{nodeRole}},
	"mapRoles broken, mapUsers has the role": {
		data:  map[string]string{"mapRoles": "- rolearn: [\n", "mapUsers": "- userarn: arn:aws:iam::111122223333:role/NodeInstanceRole\n  username: system:node:{{EC2PrivateDNSName}}\n  groups: [system:nodes]\n"},
		roles: []string{nodeRole}},
	"mapRoles broken, account mapped": {
		data:  map[string]string{"mapRoles": "- rolearn: [\n", "mapAccounts": "- \"111122223333\"\n"},
		roles: []string{nodeRole}},
	"role over user": {
		data:  map[string]string{"mapRoles": nodeEntry, "mapUsers": "- userarn: arn:aws:iam::111122223333:role/NodeInstanceRole\n  username: other\n"},
		roles: []string{nodeRole}},
	"users differing in case": {
		data:       map[string]string{"mapUsers": "- userarn: arn:aws:iam::111122223333:user/Alice\n  username: a\n- userarn: arn:aws:iam::111122223333:user/alice\n  username: b\n"},
		principals: []string{"arn:aws:iam::111122223333:user/ALICE"}},
	"userarn missing": {
		data:       map[string]string{"mapUsers": "- username: a\n- userarn: arn:aws:iam::111122223333:user/bob\n  username: bob\n"},
		principals: []string{"arn:aws:iam::111122223333:user/bob"}},
	"account only": {
		data:  map[string]string{"mapAccounts": "- \"111122223333\"\n"},
		roles: []string{nodeRole}},
	"account unquoted": {
		data:  map[string]string{"mapAccounts": "- 111122223333\n"},
		roles: []string{nodeRole}},
	"account with a leading zero, unquoted": {
		data:  map[string]string{"mapAccounts": "- 012345678901\n"},
		roles: []string{"arn:aws:iam::012345678901:role/NodeInstanceRole"}},
	"accounts as a flow list": {
		data:  map[string]string{"mapAccounts": "[111122223333, \"444455556666\"]"},
		roles: []string{nodeRole}},
	"accounts as a string": {
		data:  map[string]string{"mapAccounts": "111122223333"},
		roles: []string{nodeRole}},
	"accounts as JSON": {
		data:  map[string]string{"mapAccounts": `["111122223333"]`},
		roles: []string{nodeRole}},
	"GovCloud": {
		data:  map[string]string{"mapRoles": "- rolearn: arn:aws-us-gov:iam::111122223333:role/NodeInstanceRole\n  username: system:node:{{EC2PrivateDNSName}}\n  groups: [system:nodes]\n"},
		roles: []string{"arn:aws-us-gov:iam::111122223333:role/NodeInstanceRole", nodeRole}},
	"China": {
		data:  map[string]string{"mapRoles": "- rolearn: arn:aws-cn:iam::111122223333:role/eks/NodeInstanceRole\n  username: u\n- rolearn: arn:aws-cn:iam::111122223333:role/NodeInstanceRole\n  username: system:node:{{EC2PrivateDNSName}}\n  groups: [system:nodes]\n"},
		roles: []string{"arn:aws-cn:iam::111122223333:role/eks/NodeInstanceRole"}},
	"other partitions": {
		data: map[string]string{"mapAccounts": "- \"111122223333\"\n"},
		roles: []string{"arn:aws-iso:iam::111122223333:role/N", "arn:aws-iso-b:iam::111122223333:role/N", "arn:aws-iso-e:iam::111122223333:role/N",
			"arn:aws-iso-f:iam::111122223333:role/N", "arn:aws-eusc:iam::111122223333:role/N", "arn:aws-xx:iam::111122223333:role/N"}},
	"role ARN forms": {
		data: map[string]string{"mapRoles": nodeEntry, "mapAccounts": "- \"111122223333\"\n"},
		roles: []string{"arn:aws:sts::111122223333:assumed-role/NodeInstanceRole/i-0123456789abcdef0", "arn:aws:iam::111122223333:role/",
			"arn:aws:iam::111122223333:role", "arn:aws:iam::111122223333:user/NodeInstanceRole", "arn:aws:iam::111122223333:root",
			"arn:aws:iam:us-east-1:111122223333:role/NodeInstanceRole", "arn:aws:iam::111122223333:role//NodeInstanceRole",
			"arn:aws:iam::111122223333:role/NodeInstanceRole ", " arn:aws:iam::111122223333:role/NodeInstanceRole", "NodeInstanceRole"}},
	"principal forms": {
		data: map[string]string{"mapRoles": nodeEntry, "mapAccounts": "- \"111122223333\"\n"},
		principals: []string{"arn:aws:sts::111122223333:assumed-role/NodeInstanceRole", "arn:aws:sts::111122223333:assumed-role/a/b/c",
			"arn:aws:sts::111122223333:federated-user/bob", "arn:aws:iam::111122223333:root", "arn:aws:iam::111122223333:group/g",
			"arn:aws:sts::111122223333:assumed-role/NodeInstanceRole/", "arn:aws:s3:::bucket", "arn:aws:iam::111122223333:instance-profile/x",
			"arn:aws:sts::111122223333:AssUmed-Role/NodeInstanceRole/i-0123456789abcdef0", "ARN:aws:iam::111122223333:role/NodeInstanceRole"}},
	"windows node entry": {
		data:  map[string]string{"mapRoles": "- rolearn: arn:aws:iam::111122223333:role/NodeInstanceRole\n  username: system:node:{{EC2PrivateDNSName}}\n  groups:\n    - system:bootstrappers\n    - system:nodes\n    - eks:kube-proxy-windows\n"},
		roles: []string{nodeRole}},
	"anchors and aliases": {
		data:  map[string]string{"mapRoles": "- rolearn: arn:aws:iam::111122223333:role/A\n  username: u\n  groups: &g [system:nodes]\n- rolearn: arn:aws:iam::111122223333:role/NodeInstanceRole\n  username: system:node:{{EC2PrivateDNSName}}\n  groups: *g\n"},
		roles: []string{nodeRole}},
	"duplicate keys in an entry": {
		data:  map[string]string{"mapRoles": "- rolearn: arn:aws:iam::111122223333:role/NodeInstanceRole\n  username: a\n  username: system:node:{{EC2PrivateDNSName}}\n"},
		roles: []string{nodeRole}},
	"document separator": {
		data:  map[string]string{"mapRoles": "---\n" + nodeEntry + "---\n- rolearn: x\n"},
		roles: []string{nodeRole}},
	"null entry": {
		data:  map[string]string{"mapRoles": "- null\n- ~\n" + nodeEntry},
		roles: []string{nodeRole}},
	"numeric rolearn": {
		data:  map[string]string{"mapRoles": "- rolearn: 12\n  username: u\n" + nodeEntry},
		roles: []string{nodeRole}},
	"boolean username": {
		data:  map[string]string{"mapRoles": "- rolearn: arn:aws:iam::111122223333:role/NodeInstanceRole\n  username: yes\n"},
		roles: []string{nodeRole}},
	"CRLF": {
		data:  map[string]string{"mapRoles": "- rolearn: arn:aws:iam::111122223333:role/NodeInstanceRole\r\n  username: system:node:{{EC2PrivateDNSName}}\r\n  groups:\r\n    - system:nodes\r\n"},
		roles: []string{nodeRole}},
}

// TestAWSAuthAgreesWithAuthenticator feeds every case to the
// authenticator's own aws-auth code and to nodeboot's (awsauth and
// `nodeboot access check`): the same entries kept and refused, the same
// canonical ARNs, the same user for every principal and node role.
func TestAWSAuthAgreesWithAuthenticator(t *testing.T) {
	a := needAuthenticator(t)
	for name, c := range awsAuthCases {
		t.Run(name, func(t *testing.T) {
			diffs, err := compareAWSAuth(a, c)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range diffs {
				t.Error(d)
			}
		})
	}
}
