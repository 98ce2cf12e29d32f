package userdata

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/mimetest"
)

// lf joins lines with "\n" and ends with one, so test payloads read like
// the files they stand for.
func lf(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

func gzipBytes(t testing.TB, s string) string {
	t.Helper()
	return string(mimetest.Gzip(t, s))
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// wrap76 breaks s into 76-column lines the way base64(1) does.
func wrap76(s string) string {
	var b strings.Builder
	for len(s) > 76 {
		b.WriteString(s[:76] + "\n")
		s = s[76:]
	}
	b.WriteString(s + "\n")
	return b.String()
}

// docView is what the tests compare of a Document.
type docView struct {
	Part        int
	Line        int
	ContentType string
	Decoded     string
	Format      Format
	Data        string
}

// decodedAs returns a copy of docs whose sources say they were decoded from
// the encoding enc.
func decodedAs(enc string, docs []docView) []docView {
	out := slices.Clone(docs)
	for i := range out {
		out[i].Decoded = enc
	}
	return out
}

func viewDocs(t *testing.T, docs []Document) []docView {
	t.Helper()
	var out []docView
	for _, d := range docs {
		if d.Source.Format != string(d.Format) {
			t.Errorf("Source.Format %q != Format %q", d.Source.Format, d.Format)
		}
		out = append(out, docView{Part: d.Source.Part, Line: d.Source.Line, ContentType: d.Source.ContentType, Decoded: d.Source.Decoded, Format: d.Format, Data: string(d.Data)})
	}
	return out
}
