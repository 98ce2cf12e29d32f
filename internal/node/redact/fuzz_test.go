package redact

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// plantings are the contexts a fuzzed secret is planted in, each on lines
// of its own between fuzzed text; every one must come out masked.
var plantings = []string{
	"token: %s",
	"  bootstrap-token = \"%s\"",
	"export AWS_SECRET_ACCESS_KEY=%s",
	"HTTPS_PROXY=http://user:%s@proxy:3128",
	"Authorization: Bearer %s",
	"--password=%s",
	`{"token": "%s"}`,
	"identity:\n  bootstrapToken:\n    token: %s",
	"    client-key-data: %s",
	"aws_secret_access_key = %s",
	`{"kind":"ExecCredential","status":{"password":"%s"}}`,
	"GET /x?X-Amz-Security-Token=%s&a=b",
	"-----BEGIN PRIVATE KEY-----\n%s\n-----END PRIVATE KEY-----",
}

// FuzzBytes checks, for any input, that redaction does not panic, keeps
// the number of lines, is stable (redacting the output changes nothing
// and finds nothing), and that a secret planted in any known context
// between fuzzed text never survives nor shows up in a finding.
func FuzzBytes(f *testing.F) {
	for _, tc := range redactCases(f) {
		f.Add([]byte(tc.input), []byte("s3cr3t-value-0123"), uint8(0))
	}
	f.Add([]byte("-----BEGIN RSA PRIVATE KEY-----\nabc"), []byte("abcdef.0123456789abcdef"), uint8(3))
	f.Add([]byte(`{"identity": {"a": "`), []byte("x"), uint8(6))
	f.Fuzz(func(t *testing.T, text, secret []byte, where uint8) {
		out, findings := Bytes(text)
		if a, b := bytes.Count(text, []byte{'\n'}), bytes.Count(out, []byte{'\n'}); a != b {
			t.Fatalf("line count %d -> %d", a, b)
		}
		for _, f := range findings {
			if f.Line < 1 || f.Line > bytes.Count(text, []byte{'\n'})+1 {
				t.Fatalf("finding %+v outside the input", f)
			}
		}
		again, more := Bytes(out)
		if !bytes.Equal(again, out) || len(more) > 0 {
			t.Fatalf("not stable: %q -> %q (findings %+v)", out, again, more)
		}

		s := plantable(secret)
		if len(s) < 8 {
			return
		}
		planted := fmt.Sprintf(plantings[int(where)%len(plantings)], s)
		input := string(text) + "\n" + planted + "\n" + string(text)
		out, findings = Bytes([]byte(input))
		if strings.Contains(string(out), s) {
			t.Fatalf("planted secret %q survived in context %q:\n%s", s, planted, out)
		}
		assertFindingsClean(t, findings, []string{s})
	})
}

// plantable maps fuzz bytes to a secret that is one word in every syntax:
// letters, digits and a few punctuation marks, no quotes or separators.
func plantable(b []byte) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+/~"
	out := make([]byte, 0, len(b))
	for _, c := range b {
		out = append(out, alphabet[int(c)%len(alphabet)])
	}
	s := strings.Trim(string(out), "._+/~")
	if len(s) > 64 {
		s = s[:64]
	}
	if s == strings.Repeat(s[:min(1, len(s))], len(s)) || strings.Contains(Mask, s) || strings.Contains(s, Mask) {
		return "" // a run of one character or the mask itself proves nothing
	}
	return s
}
