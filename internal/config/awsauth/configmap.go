package awsauth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"sigs.k8s.io/yaml"
	yaml2 "sigs.k8s.io/yaml/goyaml.v2"

	"github.com/nodeboot/nodeboot/internal/lazyregexp"
)

// The aws-auth ConfigMap.
const (
	ConfigMapNamespace = "kube-system"
	ConfigMapName      = "aws-auth"
	KeyMapRoles        = "mapRoles"
	KeyMapUsers        = "mapUsers"
	KeyMapAccounts     = "mapAccounts"
)

// RoleMapping is one mapRoles entry (the authenticator's config.RoleMapping).
type RoleMapping struct {
	RoleARN  string   `json:"rolearn,omitempty"`
	SSO      *SSO     `json:"sso,omitempty"`
	Username string   `json:"username"`
	Groups   []string `json:"groups"`
	UserID   string   `json:"userid,omitempty"`
}

// SSO matches the roles IAM Identity Center creates for a permission set.
type SSO struct {
	PermissionSetName string `json:"permissionSetName"`
	AccountID         string `json:"accountID"`
	Partition         string `json:"partition,omitempty"`
}

// UserMapping is one mapUsers entry.
type UserMapping struct {
	UserARN  string   `json:"userarn"`
	Username string   `json:"username"`
	Groups   []string `json:"groups"`
	UserID   string   `json:"userid,omitempty"`
}

// Map is what the authenticator keeps of an aws-auth ConfigMap.
type Map struct {
	Roles    []RoleMapping
	Users    []UserMapping
	Accounts []string
}

// ParseProblem is one part of aws-auth the authenticator cannot use.
type ParseProblem struct {
	// Key is the ConfigMap key (mapRoles, mapUsers, mapAccounts).
	Key string
	// Entry is the index of the entry dropped or damaged; -1 when the whole
	// key is lost (a YAML error, or not a list).
	Entry int
	// Lost is true when the authenticator drops everything under Key.
	Lost bool
	Err  error
}

func (p ParseProblem) Error() string {
	if p.Entry < 0 {
		return fmt.Sprintf("%s: %v", p.Key, p.Err)
	}
	return fmt.Sprintf("%s[%d]: %v", p.Key, p.Entry, p.Err)
}

// Parse reads aws-auth's data the way the authenticator's EKSConfigMap
// backend does (ParseMap): each key's YAML is converted to JSON (text that
// already starts like JSON is taken as JSON) and decoded with
// encoding/json, which skips a field of the wrong type but keeps the rest of
// its entry; entries that fail validation are dropped; a YAML error, or a
// value that is not a list, loses the whole key. Empty values and the
// placeholders of an empty string ("", two single quotes, two backquotes)
// are skipped. mapAccounts is read with yaml.v2, as the authenticator reads
// it. The authenticator then serves
// whatever was good, which Parse returns with every problem.
func Parse(data map[string]string) (Map, []ParseProblem) {
	var m Map
	var problems []ParseProblem
	if v, ok := data[KeyMapRoles]; ok && !skippable(v) {
		var raw []RoleMapping
		problems = append(problems, decodeList(KeyMapRoles, v, &raw)...)
		for i, r := range raw {
			if err := r.Validate(); err != nil {
				problems = append(problems, ParseProblem{Key: KeyMapRoles, Entry: i, Err: err})
				continue
			}
			m.Roles = append(m.Roles, r)
		}
	}
	if v, ok := data[KeyMapUsers]; ok && !skippable(v) {
		var raw []UserMapping
		problems = append(problems, decodeList(KeyMapUsers, v, &raw)...)
		for i, u := range raw {
			if u.UserARN == "" {
				problems = append(problems, ParseProblem{Key: KeyMapUsers, Entry: i, Err: errors.New("value for userarn must be supplied")})
				continue
			}
			m.Users = append(m.Users, u)
		}
	}
	if v, ok := data[KeyMapAccounts]; ok && !skippable(v) {
		// Not sigs.k8s.io/yaml: the authenticator reads mapAccounts with
		// yaml.v2 itself, which keeps an unquoted 012345678901 as written
		// where a YAML-to-JSON conversion makes it the number 1.2345679e+10.
		if err := yaml2.Unmarshal([]byte(v), &m.Accounts); err != nil {
			problems = append(problems, ParseProblem{Key: KeyMapAccounts, Entry: -1, Lost: true, Err: err})
		}
	}
	return m, problems
}

// decodeList converts a key's YAML to JSON and decodes it into out. A type
// error leaves out partly filled, as encoding/json does.
func decodeList(key, value string, out any) []ParseProblem {
	js, err := toJSON([]byte(value))
	if err != nil {
		return []ParseProblem{{Key: key, Entry: -1, Lost: true, Err: err}}
	}
	err = json.Unmarshal(js, out)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		// A field of an entry: the entry stays, without that field.
		return []ParseProblem{{Key: key, Entry: -1, Err: fmt.Errorf("field %s is a %s, not a %s; the entry is kept without it", te.Field, te.Value, te.Type)}}
	}
	return []ParseProblem{{Key: key, Entry: -1, Lost: listEmpty(out), Err: err}}
}

func listEmpty(out any) bool {
	switch l := out.(type) {
	case *[]RoleMapping:
		return len(*l) == 0
	case *[]UserMapping:
		return len(*l) == 0
	}
	return true
}

// toJSON is apimachinery's yaml.ToJSON, which the authenticator calls:
// JSON-looking input is passed through, anything else goes through
// sigs.k8s.io/yaml. Written here to keep apimachinery's logging out of the
// node agent.
func toJSON(data []byte) ([]byte, error) {
	if bytes.HasPrefix(bytes.TrimLeftFunc(data, unicode.IsSpace), []byte("{")) {
		return data, nil
	}
	return yaml.YAMLToJSON(data)
}

func skippable(v string) bool {
	switch strings.TrimSpace(v) {
	case "", "``", `""`, "''":
		return true
	}
	return false
}

var (
	accountIDPattern     = lazyregexp.New(`^[0-9]{12}$`)
	permissionSetPattern = lazyregexp.New(`^[\w+=,.@-]{1,32}$`)
)

// Validate is the authenticator's check of a mapRoles entry: exactly one
// of rolearn and sso, and a well-formed sso matcher.
func (r RoleMapping) Validate() error {
	switch {
	case r.RoleARN == "" && r.SSO == nil:
		return errors.New("one of rolearn or sso must be supplied")
	case r.RoleARN != "" && r.SSO != nil:
		return errors.New("only one of rolearn or sso can be supplied")
	case r.SSO == nil:
		return nil
	case !accountIDPattern.MatchString(r.SSO.AccountID):
		return fmt.Errorf("sso.accountID %q is not a valid AWS account ID", r.SSO.AccountID)
	case !permissionSetPattern.MatchString(r.SSO.PermissionSetName):
		return fmt.Errorf("sso.permissionSetName %q is not a valid permission set name", r.SSO.PermissionSetName)
	}
	switch r.SSO.Partition {
	case "", "aws", "aws-cn", "aws-us-gov", "aws-iso", "aws-iso-b":
		return nil
	}
	return fmt.Errorf("sso.partition %q is not a valid AWS partition", r.SSO.Partition)
}

// Lookup finds the mapping the authenticator's EKSConfigMap backend uses
// for a canonical ARN: roles first, then users, compared without regard to
// case; of entries naming the same ARN the last one wins (the backend keys
// them by ARN). SSO matchers are not matched (the authenticator matches
// them only with its SSORoleMatch feature gate, off by default).
func (m Map) Lookup(canonicalARN string) (username string, groups []string, found bool) {
	for i := len(m.Roles) - 1; i >= 0; i-- {
		if r := m.Roles[i]; r.RoleARN != "" && strings.EqualFold(r.RoleARN, canonicalARN) {
			return r.Username, r.Groups, true
		}
	}
	for i := len(m.Users) - 1; i >= 0; i-- {
		if u := m.Users[i]; strings.EqualFold(u.UserARN, canonicalARN) {
			return u.Username, u.Groups, true
		}
	}
	return "", nil, false
}

// AccountAllowed reports whether mapAccounts lets every principal of the
// account in, as its own ARN with no groups.
func (m Map) AccountAllowed(account string) bool {
	for _, a := range m.Accounts {
		if a == account {
			return true
		}
	}
	return false
}
