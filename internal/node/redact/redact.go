package redact

import (
	"bytes"
	"errors"
	"io"
	"slices"
)

// Mask replaces every secret.
const Mask = "REDACTED"

// Rule names why a value was masked.
type Rule string

// Rules.
const (
	// RulePrivateKey: the body of a PEM private key block, or base64 text
	// that decodes to a DER private key.
	RulePrivateKey Rule = "private-key"
	// RuleIdentity: any value under a NodeConfig's identity.
	RuleIdentity Rule = "identity"
	// RuleSensitiveKey: the value of a key, variable, header or flag whose
	// name says it holds a secret (token, password, secret, credentials, ...).
	RuleSensitiveKey Rule = "sensitive-key"
	// RuleNamedValue: the value of a {name, value} pair whose name says it
	// holds a secret (a kubeconfig exec plugin's or a container's env).
	RuleNamedValue Rule = "named-value"
	// RuleBootstrapToken: a Kubernetes bootstrap token <id>.<secret>.
	RuleBootstrapToken Rule = "bootstrap-token"
	// RuleEKSToken: an aws-iam-authenticator / `aws eks get-token` token.
	RuleEKSToken Rule = "eks-token"
	// RuleJWT: a JSON web token (service-account tokens).
	RuleJWT Rule = "jwt"
	// RuleAuthorization: the credential of an HTTP Authorization header.
	RuleAuthorization Rule = "authorization"
	// RuleURLCredentials: user and password in a URL, with or without a
	// scheme (proxies among them).
	RuleURLCredentials Rule = "url-credentials"
	// RuleAWSAccessKeyID: an AWS access key ID.
	RuleAWSAccessKeyID Rule = "aws-access-key-id"
	// RuleAWSSecretKey: a 40-character secret access key on the line of its
	// access key ID.
	RuleAWSSecretKey Rule = "aws-secret-access-key"
	// RuleAWSSessionToken: an STS session token, recognised by its prefix.
	RuleAWSSessionToken Rule = "aws-session-token"
	// RuleEncodedSecret: base64 (possibly gzip) text that holds a secret.
	RuleEncodedSecret Rule = "encoded-secret"
	// RuleUndecodable: encoded text that could not be decoded and scanned
	// within the bounds (a gzip stream too large or broken): masked whole.
	RuleUndecodable Rule = "undecodable"
	// RuleCutLine: the first line of a log's tail (CopyTail), when the log
	// was cut mid-line: it may be the end of a secret whose
	// key was cut off ("ken=…" of "--token=…"), so it is masked whole.
	RuleCutLine Rule = "cut-line"
	// RuleUnscannable: a line that cannot be scanned (binary data, or longer
	// than MaxLine), masked whole by Bytes; Copy refuses such input.
	RuleUnscannable Rule = "unscannable"
)

// Finding says what was masked where; it never holds the secret.
type Finding struct {
	Rule Rule `json:"rule"`
	// Line is the 1-based line of the input (and of the output).
	Line int `json:"line"`
	// Field is the key, variable or flag name, when the rule knows one.
	Field string `json:"field,omitempty"`
}

// Bounds of the scan.
const (
	// MaxLine is the longest line scanned, in bytes.
	MaxLine = 4 << 20
	// maxBlock bounds a multi-line base64 block held to be decoded whole;
	// a longer block is masked whole.
	maxBlock = 8 << 20
	// maxDecoded bounds what one gzip stream may inflate to; a longer
	// stream is masked whole.
	maxDecoded = 4 << 20
	// maxDepth bounds how often encoded text is decoded and searched again.
	maxDepth = 2
)

// ErrUnscannable is returned by Copy for input it cannot scan: binary data
// (a NUL byte) or a line longer than MaxLine. Nothing read from such input
// may be shipped.
var ErrUnscannable = errors.New("cannot be scanned for secrets")

// Bytes returns data with every secret masked, and what was masked. The
// result has as many lines as data. A line that cannot be scanned is
// masked whole.
func Bytes(data []byte) ([]byte, []Finding) {
	out, r := scan(data, 0, false)
	return out, r.sortedFindings()
}

// MaxFindings bounds the findings a redaction returns; the rest are only
// counted (a log full of tokens must not fill memory with findings).
const MaxFindings = 10000

// Summary is what Copy masked.
type Summary struct {
	// Findings are the first MaxFindings findings, in line order.
	Findings []Finding
	// Total counts every finding, listed or not.
	Total int
}

// Copy redacts src into dst line by line, holding at most a few lines (and
// one base64 block of at most 8 MiB) in memory, and says what it masked.
// Input that cannot be scanned stops the copy with an error wrapping
// ErrUnscannable; what was written to dst must then be discarded.
func Copy(dst io.Writer, src io.Reader) (Summary, error) {
	return copyStream(newStream(dst, 0, false), src)
}

// CopyTail is Copy for input that starts in the middle of a file (a log's
// last bytes, cut at any byte). Unless lineStart says the cut fell at the
// start of a line (the byte before it was a line break), its first line is
// masked whole: it may be the end of a secret whose key was cut off.
// Either way its first lines are masked as long as they may be the rest of
// a private key block whose BEGIN line was cut off.
func CopyTail(dst io.Writer, src io.Reader, lineStart bool) (Summary, error) {
	s := newStream(dst, 0, false)
	s.pem = pemState{active: true}
	s.cutFirst = !lineStart
	return copyStream(s, src)
}

func copyStream(s *stream, src io.Reader) (Summary, error) {
	if err := s.readFrom(src); err != nil {
		return Summary{}, err
	}
	s.finish()
	if s.err != nil {
		return Summary{}, s.err
	}
	return Summary{Findings: s.sortedFindings(), Total: len(s.findings) + s.uncounted}, nil
}

// redactor collects findings, and with collect the values it masked.
type redactor struct {
	depth    int
	findings []Finding
	// uncounted are the findings past MaxFindings, not kept.
	uncounted int
	collect   bool
	values    []maskedValue
}

// maskedValue is a value masked by a redactor that collects them.
type maskedValue struct {
	rule  Rule
	field string
	value []byte
}

func (r *redactor) add(rule Rule, line int, field string) {
	if len(r.findings) >= MaxFindings {
		r.uncounted++
		return
	}
	r.findings = append(r.findings, Finding{Rule: rule, Line: line, Field: field})
}

// masked records a value that was masked, when r collects them.
func (r *redactor) masked(rule Rule, field string, v []byte) {
	if r.collect {
		r.values = append(r.values, maskedValue{rule: rule, field: field, value: bytes.Clone(unquote(bytes.TrimSpace(v)))})
	}
}

func (r *redactor) sortedFindings() []Finding {
	slices.SortStableFunc(r.findings, func(a, b Finding) int { return a.Line - b.Line })
	return r.findings
}

// isMask reports whether a value is already masked (or empty), so that
// redacting twice finds nothing new.
func isMask(v []byte) bool {
	return bytes.Equal(v, []byte(Mask))
}
