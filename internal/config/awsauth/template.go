package awsauth

import (
	"errors"
	"strings"

	"github.com/nodeboot/nodeboot/internal/lazyregexp"
)

// The placeholders the authenticator renders in usernames and groups.
const (
	TplEC2PrivateDNSName = "{{EC2PrivateDNSName}}"
	TplSessionName       = "{{SessionName}}"
	TplSessionNameRaw    = "{{SessionNameRaw}}"
	TplAccountID         = "{{AccountID}}"
	TplAccessKeyID       = "{{AccessKeyID}}"
)

// knownPlaceholders are every placeholder the authenticator replaces.
var knownPlaceholders = []string{TplEC2PrivateDNSName, TplSessionName, TplSessionNameRaw, TplAccountID, TplAccessKeyID}

// instanceIDPattern is what a session name must look like for
// {{EC2PrivateDNSName}} (the authenticator's instanceIDPattern).
var instanceIDPattern = lazyregexp.New(`^i-(\w{8}|\w{17})$`)

// ErrNotInstanceSession is returned when {{EC2PrivateDNSName}} is rendered for
// a session whose name is not an EC2 instance ID.
var ErrNotInstanceSession = errors.New("SessionName did not contain an instance id")

// Session is what the authenticator knows of a caller when it renders a
// template.
type Session struct {
	AccountID, SessionName, AccessKeyID string
	// PrivateDNSName resolves an instance ID through ec2:DescribeInstances;
	// nil makes {{EC2PrivateDNSName}} fail. The authenticator keeps the
	// name DescribeInstances first gives for an instance, an empty one
	// included, until it restarts: the first request of an instance that
	// has no private DNS name yet fails, every later one renders an empty
	// name (UnresolvedNodeUsername), even once the instance has its name.
	PrivateDNSName func(instanceID string) (string, error)
}

// UnresolvedNodeUsername is what system:node:{{EC2PrivateDNSName}} renders
// to once the authenticator has kept an empty private DNS name for the
// instance: a node user with no name, which no Node can match.
const UnresolvedNodeUsername = NodeUserPrefix

// Render renders a username or group template as the authenticator does:
// {{EC2PrivateDNSName}} needs an instance session and a DescribeInstances
// answer, {{SessionName}} has '@' replaced by '-', {{SessionNameRaw}} not;
// anything else in braces is left as it is.
func Render(template string, s Session) (string, error) {
	if strings.Contains(template, TplEC2PrivateDNSName) {
		if !instanceIDPattern.MatchString(s.SessionName) {
			return "", ErrNotInstanceSession
		}
		if s.PrivateDNSName == nil {
			return "", errors.New("no EC2 API to resolve " + TplEC2PrivateDNSName)
		}
		name, err := s.PrivateDNSName(s.SessionName)
		if err != nil {
			return "", err
		}
		template = strings.ReplaceAll(template, TplEC2PrivateDNSName, name)
	}
	template = strings.ReplaceAll(template, TplAccountID, s.AccountID)
	template = strings.ReplaceAll(template, TplSessionName, strings.ReplaceAll(s.SessionName, "@", "-"))
	template = strings.ReplaceAll(template, TplSessionNameRaw, s.SessionName)
	template = strings.ReplaceAll(template, TplAccessKeyID, s.AccessKeyID)
	return template, nil
}

// UnknownPlaceholders returns the {{...}} in template that stay in the
// rendered name as written, because the authenticator replaces nothing in
// them (a typo such as {{EC2PrivateDnsName}} makes every node's name
// literally that). Braces around or across a placeholder it does replace
// ({{{SessionName}}}) are not reported: the value replaces the placeholder
// and the braces around it stay.
func UnknownPlaceholders(template string) []string {
	// Values never contain braces, so a marker without braces stands for
	// any of them.
	const marker = "\x00"
	rest := template
	for _, p := range knownPlaceholders {
		rest = strings.ReplaceAll(rest, p, marker)
	}
	var out []string
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			return out
		}
		end := len(rest)
		if j := strings.Index(rest[i:], "}}"); j >= 0 {
			end = i + j + 2
		}
		if p := rest[i:end]; !strings.Contains(p, marker) {
			out = append(out, p)
		}
		rest = rest[end:]
	}
}

// IsInstanceID reports whether s looks like an EC2 instance ID the way the
// authenticator checks session names.
func IsInstanceID(s string) bool { return instanceIDPattern.MatchString(s) }
