// Package redact masks secrets in node files, logs and command output before
// they leave the node in a support bundle: private keys, bootstrap, bearer,
// EKS and service-account tokens, credentials in URLs (proxy credentials
// among them), AWS access keys, the values of keys that name a secret, and
// everything under a NodeConfig's identity. Certificates, the cluster CA
// among them, stay.
//
// It reports what it masked where (rule, line, field), never the secret,
// and keeps the number of lines, so that a finding's line number points at
// the same line in the redacted text. It is pure and safe for any input.
package redact
