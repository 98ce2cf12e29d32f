package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// plantings are the contexts a fuzzed secret is planted in, each on lines
// of its own between fuzzed text; every one must come out masked. They
// cover every family of the corpus (corpus_test.go): YAML, JSON (escaped
// too), TOML, environment, flags, headers, shell traces, URLs with and
// without a scheme (percent-encoded twice too), {name, value} pairs, XML,
// tables, Go's printed maps, hex dumps, encoded forms, PEM.
var plantings = []func(s string) string{
	sprintf("token: %s"),
	sprintf("  bootstrap-token = \"%s\""),
	sprintf("export AWS_SECRET_ACCESS_KEY=%s"),
	sprintf("HTTPS_PROXY=http://user:%s@proxy:3128"),
	sprintf("Authorization: Bearer %s"),
	sprintf("--password=%s"),
	sprintf(`{"token": "%s"}`),
	sprintf("identity:\n  bootstrapToken:\n    token: %s"),
	sprintf("    client-key-data: %s"),
	sprintf("aws_secret_access_key = %s"),
	sprintf(`{"kind":"ExecCredential","status":{"password":"%s"}}`),
	sprintf("GET /x?X-Amz-Security-Token=%s&a=b"),
	sprintf("-----BEGIN PRIVATE KEY-----\n%s\n-----END PRIVATE KEY-----"),
	sprintf("> X-Amz-Security-Token: %s"),
	sprintf("+ aws configure set aws_secret_access_key %s"),
	sprintf("HTTPS_PROXY=ops:%s@proxy.internal:3128"),
	sprintf(`{"HTTPS_PROXY":"http:\/\/u:%s@p:3128"}`),
	sprintf(`{"cfg":"{\"password\":\"%s\"}"}`),
	sprintf("registry: {username: r, password: %s}"),
	sprintf("      - name: AWS_SECRET_ACCESS_KEY\n        value: %s"),
	sprintf("<SessionToken>%s</SessionToken>"),
	sprintf("machine h login u password %s"),
	func(s string) string {
		return strings.TrimSuffix(curlTraceHex(curlRequest+"Authorization: Bearer "+s+"\r\n\r\n"), "\n")
	},
	func(s string) string {
		return strings.TrimSuffix(hex.Dump([]byte("aws_secret_access_key = "+s+"\n")), "\n")
	},
	func(s string) string { return strings.TrimSuffix(xxdDump("[default]\ntoken: "+s+"\n"), "\n") },
	sprintf("+------+------+\n|  Status  |  SessionToken  |\n+------+------+\n|  Active  |  %s  |"),
	sprintf("+------+------+\n|  SecretAccessKey  |  Status  |\n+------+------+\n|  %s  |  Active  |"),
	sprintf("||  SecretAccessKey|  %s   ||"),
	sprintf("0000: Set-Cookie: session=%s; Path=/; HttpOnly"),
	sprintf("2026-11-28T21:00:01.000000+0000 ip-10-0-0-1 kubelet[900]:         Cookie: session=%s"),
	sprintf("headers: map[Accept:[*/*] X-Auth-Token:[%s]]"),
	sprintf("+ curl -sSf -u robot:%s https://r.example.com/v2/"),
	sprintf("+ crictl pull --creds robot:%s r/x:1"),
	func(s string) string {
		return "next=" + url.QueryEscape(url.QueryEscape("https://h/k?X-Amz-Security-Token="+s+"&X-Amz-Date=1"))
	},
	func(s string) string { return "data " + base64.StdEncoding.EncodeToString([]byte("password: "+s)) },
	func(s string) string { return "ud " + base64.StdEncoding.EncodeToString(gz("token: "+s+"\n")) },
}

func sprintf(format string) func(string) string {
	return func(s string) string { return fmt.Sprintf(format, s) }
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
	// Text from the real producers (aws --output table and --debug, curl
	// --trace-ascii, Go's %v of an http.Header, bash -x), with the secret
	// planted in the contexts found leaking there.
	for i, text := range []string{
		"||  Expiration     |  2026-11-28T23:00:00Z                    ||",
		"<= Recv header, 52 bytes (0x34)\n0000: Set-Cookie: session=a; Path=/",
		"2026-11-28T21:00:01.000000+0000 ip-10-0-0-1 kubelet[900]:  >",
		"request: &{Method:GET Header:map[Authorization:[Bearer x]] Body:{}}",
		"++ cat /tmp/p\n+ curl -sSf -u",
		"+ crictl pull --creds",
		"redirect=https%3A%2F%2Fb.s3.amazonaws.com%2Fk%3FX-Amz-Credential%3DAKIA",
	} {
		f.Add([]byte(text), []byte("Rg-P4ss_w0rdAdTdlz"), uint8(len(plantings)-7+i))
	}
	// Hex dumps (curl --trace, hexdump -C, xxd), the secret cut across
	// their lines.
	for i, text := range []string{
		curlTraceHex(curlRequest + "Cookie: a=b\r\n"),
		hex.Dump([]byte("[default]\nregion = us-west-2\n")),
		xxdDump("apiVersion: v1\nkind: Config\n"),
	} {
		f.Add([]byte(text), []byte("Rg-P4ss_w0rdAdTdlz"), uint8(22+i))
	}
	// aws --output table laid out in columns and as a list.
	f.Add([]byte("+-----------------------+\n|      Expiration       |"), []byte("x9vJupc94tnwlavyfErGPm+pGXafq0fjzLczbttO"), uint8(25))
	f.Add([]byte("|               CreateAccessKey              |"), []byte("x9vJupc94tnwlavyfErGPm+pGXafq0fjzLczbttO"), uint8(26))
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
		var copied bytes.Buffer
		if _, err := Copy(&copied, bytes.NewReader(text)); err == nil && !bytes.Equal(copied.Bytes(), out) {
			t.Fatalf("Copy and Bytes disagree: %q vs %q", copied.Bytes(), out)
		}

		s := plantable(secret)
		if len(s) < 8 {
			return
		}
		planted := plantings[int(where)%len(plantings)](s)
		input := string(text) + "\n" + planted + "\n" + string(text)
		out, findings = Bytes([]byte(input))
		hexBytes, shown := dumpColumns(string(out))
		if strings.Contains(string(out), s) || strings.Contains(hexBytes, s) || strings.Contains(shown, s) {
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
