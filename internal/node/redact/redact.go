package redact

import (
	"bytes"
	"slices"
)

// Mask replaces every secret.
const Mask = "REDACTED"

// Rule names why a value was masked.
type Rule string

// Rules.
const (
	// RulePrivateKey: the body of a PEM private key block.
	RulePrivateKey Rule = "private-key"
	// RuleIdentity: any value under a NodeConfig's identity.
	RuleIdentity Rule = "identity"
	// RuleSensitiveKey: the value of a key, variable or flag whose name
	// says it holds a secret (token, password, secret, credentials, ...).
	RuleSensitiveKey Rule = "sensitive-key"
	// RuleBootstrapToken: a Kubernetes bootstrap token <id>.<secret>.
	RuleBootstrapToken Rule = "bootstrap-token"
	// RuleEKSToken: an aws-iam-authenticator / `aws eks get-token` token.
	RuleEKSToken Rule = "eks-token"
	// RuleJWT: a JSON web token (service-account tokens).
	RuleJWT Rule = "jwt"
	// RuleAuthorization: the credential of an HTTP Authorization header.
	RuleAuthorization Rule = "authorization"
	// RuleURLCredentials: user and password in a URL (proxies among them).
	RuleURLCredentials Rule = "url-credentials"
	// RuleAWSAccessKeyID: an AWS access key ID.
	RuleAWSAccessKeyID Rule = "aws-access-key-id"
	// RuleEncodedSecret: base64 (possibly gzip) text that holds a secret.
	RuleEncodedSecret Rule = "encoded-secret"
)

// Finding says what was masked where; it never holds the secret.
type Finding struct {
	Rule Rule `json:"rule"`
	// Line is the 1-based line of the input (and of the output).
	Line int `json:"line"`
	// Field is the key, variable or flag name, when the rule knows one.
	Field string `json:"field,omitempty"`
}

// maxDepth bounds how often encoded text is decoded and searched again.
const maxDepth = 2

// Bytes returns data with every secret masked, and what was masked. The
// result has as many lines as data.
func Bytes(data []byte) ([]byte, []Finding) {
	return redact(data, 0)
}

func redact(data []byte, depth int) ([]byte, []Finding) {
	r := &redactor{depth: depth}
	out := maskPrivateKeys(data, r)
	out = maskJSONIdentity(out, r)
	out = r.lines(out)
	slices.SortStableFunc(r.findings, func(a, b Finding) int { return a.Line - b.Line })
	return out, r.findings
}

// redactor collects findings across the passes.
type redactor struct {
	depth    int
	findings []Finding
}

func (r *redactor) add(rule Rule, line int, field string) {
	r.findings = append(r.findings, Finding{Rule: rule, Line: line, Field: field})
}

// lineAt returns the 1-based line of offset off in data.
func lineAt(data []byte, off int) int {
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}

// isMask reports whether a value is already masked (or empty), so that
// redacting twice finds nothing new.
func isMask(v []byte) bool {
	return bytes.Equal(v, []byte(Mask))
}
