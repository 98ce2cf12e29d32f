package redact

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"os"
	"strings"
	"testing"
)

// Secrets planted in the test inputs.
const (
	bootstrapToken = "abcdef.0123456789abcdef"
	eksToken       = "k8s-aws-v1.aHR0cHM6Ly9zdHMudXMtd2VzdC0yLmFtYXpvbmF3cy5jb20vP0FjdGlvbj1HZXRDYWxsZXJJZGVudGl0eQ"
	jwtToken       = "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJpc3MiOiJrdWJlcm5ldGVzIiwic3ViIjoic3lzdGVtOnNhIn0.c2lnbmF0dXJlLWJ5dGVz"
	accessKeyID    = "AKIAIOSFODNN7EXAMPLE"
	secretKey      = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	sessionToken   = "FwoGZXIvYXdzEJr//////////wEaDGV4YW1wbGVzZXNzaW9u"
	proxyPassword  = "pr0xy-Pa55"
	staticToken    = "31ada4fd-adec-460c-809a-9e56ceb75269"
)

// testKey and testCA are a private key and a certificate (the cluster CA
// stand-in), as PEM.
func testKey(t testing.TB) string { return readTestdata(t, "key.pem") }
func testCA(t testing.TB) string  { return readTestdata(t, "ca.pem") }

// keyBody returns the base64 lines of the test key, each a secret.
func keyBody(t testing.TB) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(testKey(t)), "\n") {
		if !strings.HasPrefix(l, "-----") {
			out = append(out, l)
		}
	}
	return out
}

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// wrap76 breaks s into MIME-style 76-column lines.
func wrap76(s string) string {
	var b strings.Builder
	for len(s) > 76 {
		b.WriteString(s[:76] + "\n")
		s = s[76:]
	}
	b.WriteString(s)
	return b.String()
}

func gzipB64(t testing.TB, s string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range lines {
		lines[i] = prefix + lines[i]
	}
	return strings.Join(lines, "\n")
}
