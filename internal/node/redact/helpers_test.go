package redact

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
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

// dumpColumns reads what the hex dumps in out show, by the columns of the
// formats' fixed layouts (curl --trace, hexdump -C and Go's hex.Dump,
// xxd): the bytes of the hex columns, and the text columns, each run of
// lines joined. A masked byte ("**") reads as a NUL.
func dumpColumns(out string) (hexBytes, text string) {
	var hb, tb strings.Builder
	for _, line := range strings.Split(out, "\n") {
		var hexArea, textArea string
		switch {
		case dumpPrefix.MatchString(line) && len(line) > 59 && strings.HasPrefix(line[58:], " |"):
			hexArea, textArea = line[10:58], strings.TrimSuffix(line[60:], "|")
		case xxdPrefix.MatchString(line) && len(line) > 51:
			hexArea, textArea = line[10:50], line[51:]
		case curlPrefix.MatchString(line) && len(line) > 54:
			hexArea, textArea = line[6:54], line[54:]
		default:
			continue
		}
		digits := strings.ReplaceAll(hexArea, " ", "")
		for i := 0; i+2 <= len(digits); i += 2 {
			b, err := hex.DecodeString(digits[i : i+2])
			if err != nil {
				b = []byte{0}
			}
			hb.Write(b)
		}
		tb.WriteString(textArea)
	}
	return hb.String(), tb.String()
}

var (
	dumpPrefix = regexp.MustCompile(`^[0-9a-f]{8}  `)
	xxdPrefix  = regexp.MustCompile(`^[0-9a-f]{8}: `)
	curlPrefix = regexp.MustCompile(`^[0-9a-f]{4}: `)
)

// curlTraceHex writes data as `curl --trace` does: 16 bytes a line, in
// hex then as text, each line after its offset.
func curlTraceHex(data string) string {
	var b strings.Builder
	for off := 0; off < len(data); off += 16 {
		line := data[off:min(off+16, len(data))]
		fmt.Fprintf(&b, "%04x: ", off)
		for c := range 16 {
			if c < len(line) {
				fmt.Fprintf(&b, "%02x ", line[c])
			} else {
				b.WriteString("   ")
			}
		}
		for _, c := range []byte(line) {
			if c < 0x20 || c >= 0x80 {
				c = '.'
			}
			b.WriteByte(c)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// xxdDump writes data as xxd does: 16 bytes a line in groups of two.
func xxdDump(data string) string {
	var b strings.Builder
	for off := 0; off < len(data); off += 16 {
		line := data[off:min(off+16, len(data))]
		var h strings.Builder
		for c := range line {
			fmt.Fprintf(&h, "%02x", line[c])
			if c%2 == 1 {
				h.WriteByte(' ')
			}
		}
		text := []byte(line)
		for i, c := range text {
			if c < 0x20 || c > 0x7e {
				text[i] = '.'
			}
		}
		fmt.Fprintf(&b, "%08x: %-40s %s\n", off, h.String(), text)
	}
	return b.String()
}
