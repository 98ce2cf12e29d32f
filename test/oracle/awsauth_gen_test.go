//go:build oracle

package oracle

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"sigs.k8s.io/yaml"
)

// The fragments generated aws-auth ConfigMaps are made of: the forms users
// write, and the mistakes the field reports (paths, instance profiles, case,
// stray whitespace, wrong types, missing fields, broken indentation).
var (
	genARNs = []string{nodeRole, strings.ToLower(nodeRole), "arn:aws:iam::111122223333:role/eks/NodeInstanceRole",
		"arn:aws-us-gov:iam::111122223333:role/NodeInstanceRole", "arn:aws-cn:iam::111122223333:role/NodeInstanceRole",
		"arn:aws:iam::111122223333:instance-profile/NodeInstanceRole", "arn:aws:iam::444455556666:role/NodeInstanceRole",
		"arn:aws:iam::111122223333:role/Other", "arn:aws:iam::111122223333:user/alice", "arn:aws:iam::111122223333:user/Alice",
		"arn:aws:sts::111122223333:assumed-role/NodeInstanceRole/i-0123456789abcdef0", `"arn:aws:iam::111122223333:role/NodeInstanceRole "`,
		"arn:aws:iam::012345678901:role/NodeInstanceRole", "12"}
	genUsernames = []string{"system:node:{{EC2PrivateDNSName}}", "system:node:{{SessionName}}", "admin", "yes", "123",
		`"{{AccountID}}"`, "system:node:{{EC2PrivateDnsName}}", `""`}
	genGroups = []string{"\n    - system:bootstrappers\n    - system:nodes", " [system:bootstrappers, system:nodes]", " system:nodes",
		" []", " [system:nodes, 42]", " ~", "\n    - system:nodes\n    - eks:kube-proxy-windows"}
	genAccounts = []string{`"111122223333"`, "111122223333", "012345678901", `"444455556666"`, "1.5", "true"}
	// genRoles are node roles as `nodeboot access --role` takes them.
	genRoles = []string{nodeRole, "arn:aws:iam::111122223333:role/eks/NodeInstanceRole", "arn:aws-us-gov:iam::111122223333:role/NodeInstanceRole",
		"arn:aws:sts::111122223333:assumed-role/NodeInstanceRole/i-0123456789abcdef0", "arn:aws:iam::012345678901:role/NodeInstanceRole",
		"arn:aws:iam::111122223333:role/Other"}
	genPrincipals = []string{"arn:aws:iam::111122223333:user/alice", "arn:aws:iam::111122223333:role/eks/NodeInstanceRole",
		"arn:aws:sts::444455556666:assumed-role/NodeInstanceRole/x@example.com"}
)

func pick[T any](r *rand.Rand, from []T) T { return from[r.IntN(len(from))] }

// genEntry is one mapRoles or mapUsers entry (key rolearn or userarn).
func genEntry(r *rand.Rand, key string) string {
	var b strings.Builder
	fields := []string{}
	if r.IntN(10) > 0 {
		fields = append(fields, key+": "+pick(r, genARNs))
	}
	if r.IntN(8) > 0 {
		fields = append(fields, "username: "+pick(r, genUsernames))
	}
	if r.IntN(6) > 0 {
		fields = append(fields, "groups:"+pick(r, genGroups))
	}
	switch r.IntN(12) {
	case 0:
		fields = append(fields, "extra: 1")
	case 1:
		fields = append(fields, "sso: {permissionSetName: Admin, accountID: \"111122223333\"}")
	case 2:
		fields = append(fields, "userid: AROAEXAMPLE")
	}
	r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	indent := "  "
	if r.IntN(25) == 0 {
		indent = " " // broken indentation
	}
	for i, f := range fields {
		if i == 0 {
			b.WriteString("- " + f + "\n")
			continue
		}
		b.WriteString(indent + strings.ReplaceAll(f, "\n    ", "\n"+indent+"  ") + "\n")
	}
	if len(fields) == 0 {
		b.WriteString("- {}\n")
	}
	return b.String()
}

// genList is a mapRoles or mapUsers value: YAML entries, sometimes the
// same list re-encoded as JSON (as tools that write aws-auth do).
func genList(r *rand.Rand, key string) string {
	var b strings.Builder
	for range r.IntN(5) {
		b.WriteString(genEntry(r, key))
	}
	s := b.String()
	if r.IntN(6) == 0 {
		if js, ok := asJSON(s); ok {
			return js
		}
	}
	if r.IntN(20) == 0 {
		s += "\r\n"
	}
	return s
}

// asJSON re-encodes YAML entries as the JSON a tool would write.
func asJSON(yamlList string) (string, bool) {
	var v any
	if err := yaml.Unmarshal([]byte(yamlList), &v); err != nil || v == nil {
		return "", false
	}
	b, err := json.Marshal(v)
	return string(b), err == nil
}

func genAccountsValue(r *rand.Rand) string {
	var b strings.Builder
	switch r.IntN(8) {
	case 0:
		return pick(r, genAccounts)
	case 1:
		return "[" + pick(r, genAccounts) + ", " + pick(r, genAccounts) + "]"
	}
	for range 1 + r.IntN(3) {
		b.WriteString("- " + pick(r, genAccounts) + "\n")
	}
	return b.String()
}

// genAWSAuthCase is one generated ConfigMap with node roles and principals.
func genAWSAuthCase(r *rand.Rand) awsAuthCase {
	c := awsAuthCase{data: map[string]string{}}
	if r.IntN(20) == 0 {
		c.data = nil
	}
	if c.data != nil {
		if r.IntN(8) > 0 {
			c.data["mapRoles"] = genList(r, "rolearn")
		}
		if r.IntN(3) == 0 {
			c.data["mapUsers"] = genList(r, "userarn")
		}
		if r.IntN(4) == 0 {
			c.data["mapAccounts"] = genAccountsValue(r)
		}
	}
	c.roles = []string{pick(r, genRoles), pick(r, genRoles)}
	c.principals = []string{pick(r, genPrincipals)}
	return c
}

// awsAuthInputs is how many generated ConfigMaps make oracle runs
// (NODEBOOT_AWSAUTH_INPUTS; each takes about a millisecond).
func awsAuthInputs() int {
	if n, err := strconv.Atoi(os.Getenv("NODEBOOT_AWSAUTH_INPUTS")); err == nil && n > 0 {
		return n
	}
	return 1000
}

// TestAWSAuthGeneratedAgreesWithAuthenticator runs generated aws-auth
// ConfigMaps (fixed seed) through the authenticator and nodeboot.
func TestAWSAuthGeneratedAgreesWithAuthenticator(t *testing.T) {
	a := needAuthenticator(t)
	r := rand.New(rand.NewPCG(20261128, 1))
	failed := 0
	for i := range awsAuthInputs() {
		c := genAWSAuthCase(r)
		diffs, err := compareAWSAuth(a, c)
		if err != nil {
			t.Fatal(err)
		}
		if len(diffs) > 0 && failed < 5 {
			failed++
			t.Errorf("generated case %d, data %q, roles %q:\n  %s", i, c.data, c.roles, strings.Join(diffs, "\n  "))
		}
	}
}

// FuzzAWSAuthAgainstAuthenticator mutates aws-auth's three keys; the
// authenticator and nodeboot must agree on every one (go test -tags oracle
// -run '^$' -fuzz FuzzAWSAuthAgainstAuthenticator ./test/oracle/).
func FuzzAWSAuthAgainstAuthenticator(f *testing.F) {
	for _, c := range awsAuthCases {
		f.Add(c.data["mapRoles"], c.data["mapUsers"], c.data["mapAccounts"])
	}
	a := needAuthenticator(f)
	f.Fuzz(func(t *testing.T, mapRoles, mapUsers, mapAccounts string) {
		// A ConfigMap's data reaches the authenticator as JSON or protobuf
		// strings: UTF-8.
		if !utf8.ValidString(mapRoles + mapUsers + mapAccounts) {
			t.Skip()
		}
		c := awsAuthCase{data: map[string]string{}, roles: genRoles, principals: genPrincipals}
		for k, v := range map[string]string{"mapRoles": mapRoles, "mapUsers": mapUsers, "mapAccounts": mapAccounts} {
			if v != "" {
				c.data[k] = v
			}
		}
		diffs, err := compareAWSAuth(a, c)
		if err != nil {
			t.Fatal(err)
		}
		if len(diffs) > 0 {
			t.Errorf("data %q:\n  %s", c.data, strings.Join(diffs, "\n  "))
		}
	})
}
