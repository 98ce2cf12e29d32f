//go:build oracle

package oracle

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nodeboot/nodeboot/internal/cluster/access"
	"github.com/nodeboot/nodeboot/internal/config/awsauth"
	"github.com/nodeboot/nodeboot/internal/testing/gobuild"
)

// authenticator is EKS's authenticator's own aws-auth code, run as
// test/tools/authenticator/awsauthoracle (built in that module, so with the
// dependency versions of the authenticator binary the e2e suite runs).
type authenticator struct {
	mu  sync.Mutex
	in  io.WriteCloser
	out *bufio.Scanner
	// stderr is the end of its log.
	stderr *logTail
}

// logTail keeps the last 8 KiB written to it.
type logTail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *logTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - 8<<10; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

func (t *logTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// authRequest and authAnswer are awsauthoracle's protocol.
type authRequest struct {
	Data       map[string]string `json:"data"`
	Principals []string          `json:"principals"`
}

type authAnswer struct {
	Parse struct {
		Roles    []awsauth.RoleMapping `json:"roles"`
		Users    []awsauth.UserMapping `json:"users"`
		Accounts []string              `json:"accounts"`
		Err      string                `json:"err"`
	} `json:"parse"`
	Lookups []authLookup `json:"lookups"`
	Error   string       `json:"error"`
}

type authLookup struct {
	Principal      string       `json:"principal"`
	Kind           int          `json:"kind"`
	Canonical      string       `json:"canonical"`
	CanonicalError string       `json:"canonicalError"`
	Results        []authResult `json:"results"`
}

// authResult is whom the authenticator maps a principal to.
type authResult struct {
	Mapped   bool     `json:"mapped"`
	Via      string   `json:"via,omitempty"`
	Username string   `json:"username,omitempty"`
	Groups   []string `json:"groups,omitempty"`
}

func (r authResult) String() string {
	if !r.Mapped {
		return "not mapped"
	}
	return fmt.Sprintf("%s %q %q", r.Via, r.Username, r.Groups)
}

var startedAuthenticator = sync.OnceValues(func() (*authenticator, error) {
	dir, err := os.MkdirTemp("", "awsauthoracle-")
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, "awsauthoracle")
	// The tools module's own pins: not this module's apimachinery or YAML.
	if err := gobuild.Build(context.Background(), "../tools/authenticator", bin, "./awsauthoracle", ""); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin)
	stderr := &logTail{}
	cmd.Stderr = stderr // the authenticator's logs: shown when it fails
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	// The binary is open; it ends when this process closes its stdin.
	_ = os.RemoveAll(dir)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	return &authenticator{in: in, out: sc, stderr: stderr}, nil
})

// ask sends one ConfigMap and its principals to the authenticator.
func (a *authenticator) ask(req authRequest) (authAnswer, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return authAnswer{}, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, err := a.in.Write(append(b, '\n')); err != nil {
		return authAnswer{}, err
	}
	if !a.out.Scan() {
		return authAnswer{}, fmt.Errorf("awsauthoracle ended (%v); its log ends:\n%s", a.out.Err(), a.stderr)
	}
	var ans authAnswer
	if err := json.Unmarshal(a.out.Bytes(), &ans); err != nil {
		return authAnswer{}, err
	}
	if ans.Error != "" {
		return authAnswer{}, fmt.Errorf("awsauthoracle: %s", ans.Error)
	}
	return ans, nil
}

func needAuthenticator(t testing.TB) *authenticator {
	t.Helper()
	a, err := startedAuthenticator()
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// awsAuthCase is one aws-auth ConfigMap, the node roles of groups checked
// against it (as `nodeboot access --role` takes them) and other principals
// (STS caller ARNs) to look up.
type awsAuthCase struct {
	data       map[string]string
	roles      []string
	principals []string
}

// sessionOf is the ARN STS gives an instance's session of a role given as
// `nodeboot access` accepts it: an assumed-role ARN as it is, a role ARN
// as the role's session named after an instance, without the role's path
// (STS leaves paths out of assumed-role ARNs).
func sessionOf(roleARN string) string {
	if r, err := awsauth.ParseRoleARN(roleARN); err == nil {
		return fmt.Sprintf("arn:%s:sts::%s:assumed-role/%s/i-0123456789abcdef0", r.Partition, r.Account, r.Name)
	}
	return roleARN
}

// compareAWSAuth runs one case through the authenticator and nodeboot and
// returns every disagreement (nil when they agree).
func compareAWSAuth(a *authenticator, c awsAuthCase) ([]string, error) {
	principals := slices.Clone(c.principals)
	for _, r := range c.roles {
		principals = append(principals, sessionOf(r))
	}
	ans, err := a.ask(authRequest{Data: c.data, Principals: principals})
	if err != nil {
		return nil, err
	}
	var diffs []string
	m, problems := awsauth.Parse(c.data)
	diffs = append(diffs, compareParse(ans, m, problems)...)
	for _, l := range ans.Lookups {
		diffs = append(diffs, compareLookup(m, l)...)
	}
	for i, r := range c.roles {
		diffs = append(diffs, compareCheck(c.data, r, ans.Lookups[len(c.principals)+i])...)
	}
	return diffs, nil
}

// compareParse: the same entries kept, the same accounts, and a problem
// reported exactly when the authenticator reports an error.
func compareParse(ans authAnswer, m awsauth.Map, problems []awsauth.ParseProblem) []string {
	var diffs []string
	if !equalJSON(ans.Parse.Roles, m.Roles) {
		diffs = append(diffs, fmt.Sprintf("mapRoles kept: authenticator %s, nodeboot %s", toJSON(ans.Parse.Roles), toJSON(m.Roles)))
	}
	if !equalJSON(ans.Parse.Users, m.Users) {
		diffs = append(diffs, fmt.Sprintf("mapUsers kept: authenticator %s, nodeboot %s", toJSON(ans.Parse.Users), toJSON(m.Users)))
	}
	if !equalJSON(ans.Parse.Accounts, m.Accounts) {
		diffs = append(diffs, fmt.Sprintf("mapAccounts: authenticator %s, nodeboot %s", toJSON(ans.Parse.Accounts), toJSON(m.Accounts)))
	}
	if (ans.Parse.Err != "") != (len(problems) > 0) {
		diffs = append(diffs, fmt.Sprintf("parse errors: authenticator %q, nodeboot %v", ans.Parse.Err, problems))
	}
	return diffs
}

// compareLookup: the same canonical ARN, and the same mapping from
// awsauth's lookups (one of the authenticator's when its answer varies).
func compareLookup(m awsauth.Map, l authLookup) []string {
	kind, canonical, err := awsauth.Canonical(l.Principal)
	if (err != nil) != (l.CanonicalError != "") || int(kind) != l.Kind || canonical != l.Canonical {
		return []string{fmt.Sprintf("%s canonical: authenticator %d %q (%s), nodeboot %d %q (%v)",
			l.Principal, l.Kind, l.Canonical, l.CanonicalError, kind, canonical, err)}
	}
	if err != nil {
		return nil
	}
	ours := ourMapping(m, canonical)
	if !containsResult(l.Results, ours) {
		return []string{fmt.Sprintf("%s maps to: authenticator %v, nodeboot %v", l.Principal, l.Results, ours)}
	}
	return nil
}

func ourMapping(m awsauth.Map, canonical string) authResult {
	if username, groups, found := m.Lookup(canonical); found {
		via := "user"
		if slices.ContainsFunc(m.Roles, func(r awsauth.RoleMapping) bool { return r.RoleARN != "" && strings.EqualFold(r.RoleARN, canonical) }) {
			via = "role"
		}
		return authResult{Mapped: true, Via: via, Username: username, Groups: groups}
	}
	if account := strings.Split(canonical, ":")[4]; m.AccountAllowed(account) {
		return authResult{Mapped: true, Via: "account", Username: canonical}
	}
	return authResult{}
}

// compareCheck: `nodeboot access check --role R` on a CONFIG_MAP cluster
// says the group's nodes authenticate exactly when the authenticator maps
// their sessions, as the same username and groups, unless awsAuthExempt
// names the difference.
func compareCheck(data map[string]string, role string, l authLookup) []string {
	rep := access.Check(access.Cluster{Name: "c", Mode: access.ModeConfigMap, AWSAuth: data, AWSAuthFound: data != nil},
		[]access.Group{access.RoleGroup(role, false)})
	g := rep.Groups[0]
	results := l.Results
	if len(results) == 0 { // the authenticator refuses the ARN itself
		results = []authResult{{}}
	}
	for _, r := range results {
		if r.Mapped == g.Authenticates && r.Username == g.Username && slices.Equal(r.Groups, g.Groups) {
			return nil
		}
	}
	for _, e := range awsAuthExempt {
		if e.applies(l, g) {
			return nil
		}
	}
	return []string{fmt.Sprintf("access check --role %s: authenticator maps %s to %v; nodeboot says authenticates=%v as %q %q (findings %v)",
		role, l.Principal, l.Results, g.Authenticates, g.Username, g.Groups, g.Findings)}
}

// awsAuthDifference is a deliberate difference between the authenticator
// and `nodeboot access check`, documented for users in the doc it names.
type awsAuthDifference struct {
	name, doc string
	applies   func(l authLookup, g access.GroupReport) bool
}

// The authenticator's arn.ROLE and arn.ASSUMED_ROLE.
const (
	kindRole        = 1
	kindAssumedRole = 5
)

// awsAuthExempt lists every deliberate difference.
var awsAuthExempt = []awsAuthDifference{{
	// The authenticator would let any IAM principal in through mapAccounts;
	// a node group's nodes always call as a session of a named role, so
	// --role refuses everything else as a usage mistake.
	name: "--role takes a role",
	doc:  "docs/identity.md#what-nodeboot-access-accepts-as-a-role",
	applies: func(l authLookup, g access.GroupReport) bool {
		refused := !g.Authenticates && slices.ContainsFunc(g.Findings, func(f access.Finding) bool { return f.Code == "not-a-role" })
		_, name, isRole := strings.Cut(l.Canonical, ":role/")
		return refused && (l.Kind != kindRole && l.Kind != kindAssumedRole || !isRole || name == "" || strings.HasSuffix(name, "/"))
	},
}}

func containsResult(results []authResult, r authResult) bool {
	for _, x := range results {
		if x.Mapped == r.Mapped && x.Via == r.Via && x.Username == r.Username && slices.Equal(x.Groups, r.Groups) {
			return true
		}
	}
	return false
}

// equalJSON compares two values as JSON, an empty list as no list.
func equalJSON(a, b any) bool { return toJSON(a) == toJSON(b) }

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	if s := string(b); s != "[]" {
		return s
	}
	return "null"
}
