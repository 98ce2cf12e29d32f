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
		// The encrypted data key inside an ECR authorization token (the
		// base64 JSON that `aws ecr get-login-password` prints).
		"datakey",
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

// normalizeKey lower-cases name and drops separators and quotes, into buf
// when it fits (keys are tried on every colon and equals sign of a log,
// so this must not allocate).
func normalizeKey(buf []byte, name []byte) []byte {
	out := buf[:0]
	for _, c := range name {
		switch c {
		case '-', '_', '.', ' ', '"', '\'':
			continue
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		out = append(out, c)
	}
	return out
}

// sensitiveKey reports whether a key, variable or flag name says its value
// is a secret.
func sensitiveKey(name []byte) bool {
	if isDataKeyFile(name) {
		return true
	}
	var buf [64]byte
	k := normalizeKey(buf[:], name)
	if len(k) == 0 {
		return false
	}
	for _, s := range notSecretSuffixes {
		if bytes.HasSuffix(k, []byte(s)) {
			return false
		}
	}
	for _, s := range secretSuffixes {
		if bytes.HasSuffix(k, []byte(s)) {
			return true
		}
	}
	for _, w := range secretWords {
		if bytes.Contains(k, []byte(w)) {
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

// isDataKeyFile reports whether name is a key file's name, as the keys of
// a Kubernetes Secret's data are (tls.key, ca.key, sa.key).
func isDataKeyFile(name []byte) bool {
	name = unquote(name)
	return len(name) > 4 && bytes.EqualFold(name[len(name)-4:], []byte(".key"))
}
