package redact

import (
	"bytes"
	"strings"
)

// Key names are compared normalised: lower case, without '-', '_', '.',
// spaces and quotes, so "client-key-data", "AWS_SECRET_ACCESS_KEY" and
// "settings.kubernetes.bootstrap-token" all match.
var (
	// secretSuffixes end the names of keys that hold a secret.
	secretSuffixes = []string{
		"password", "passwd", "passphrase", "secret", "token", "credential", "credentials",
		"apikey", "accesskey", "accesskeyid", "secretkey", "privatekey", "keydata",
		"auth", "authorization", "cookie", "signature",
	}
	// secretWords anywhere in a name mark a secret.
	secretWords = []string{"password", "secret"}
	// notSecretSuffixes end names that mention a secret but hold a
	// reference, a setting or a public part (tokenFile, secretName,
	// authorizationMode, tokenTTL, token-id).
	notSecretSuffixes = []string{
		"file", "files", "path", "dir", "ttl", "seconds", "duration", "name", "ref", "type", "mode",
		"enabled", "hashes", "expiration", "timestamp", "tokenid",
	}
)

// normalizeKey lower-cases name and drops separators and quotes.
func normalizeKey(name []byte) string {
	var b strings.Builder
	for _, c := range bytes.ToLower(name) {
		switch c {
		case '-', '_', '.', ' ', '"', '\'':
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// sensitiveKey reports whether a key, variable or flag name says its value
// is a secret.
func sensitiveKey(name []byte) bool {
	k := normalizeKey(name)
	if k == "" {
		return false
	}
	for _, s := range notSecretSuffixes {
		if strings.HasSuffix(k, s) {
			return false
		}
	}
	for _, s := range secretSuffixes {
		if strings.HasSuffix(k, s) {
			return true
		}
	}
	for _, w := range secretWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// notSecretValue reports whether a value cannot be a secret worth masking:
// empty, a boolean, null, an opening bracket or already masked.
func notSecretValue(v []byte) bool {
	v = bytes.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
	}
	switch strings.ToLower(string(v)) {
	case "", "true", "false", "yes", "no", "on", "off", "null", "nil", "~", "{", "[", "{}", "[]", strings.ToLower(Mask), "<redacted>":
		return true
	}
	return false
}
