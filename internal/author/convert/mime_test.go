package convert

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/testing/mimetest"
)

// TestMIMEIsWellFormed writes parts holding delimiter-like lines and reads
// the document back with Go's mime/multipart reader: every part comes back
// whole, in order, and the boundary is "//" exactly when no part starts a
// line with "--//".
func TestMIMEIsWellFormed(t *testing.T) {
	tests := []struct {
		name         string
		bodies       []string
		wantBoundary string
		// hashed: the boundary is a content-derived one (==nodeboot-<hex>==).
		hashed bool
	}{
		{name: "plain parts", bodies: []string{"#!/bin/bash\necho hi\n", "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n"}, wantBoundary: "//"},
		{name: "URLs and // inside lines are fine", bodies: []string{"curl https://example.com//x\n# --not a delimiter //\n"}, wantBoundary: "//"},
		{name: "a line starting with --//", bodies: []string{"#!/bin/bash\necho a\n--//\necho b\n", "kind: NodeConfig\n"}, wantBoundary: "==nodeboot-1=="},
		{name: "the closing delimiter", bodies: []string{"echo a\n--//--\necho b"}, wantBoundary: "==nodeboot-1=="},
		{name: "indented delimiter", bodies: []string{"cat <<EOF\n  --//\nEOF\n"}, wantBoundary: "==nodeboot-1=="},
		{name: "the fallback taken too", bodies: []string{"--//\n", "--==nodeboot-1==\n"}, wantBoundary: "==nodeboot-2=="},
		{name: "no final newline", bodies: []string{"echo a"}, wantBoundary: "//"},
		{name: "delimiter after a lone CR", bodies: []string{"#!/bin/sh\necho a\r--//\recho b\n"}, wantBoundary: "==nodeboot-1=="},
		{name: "every numbered boundary taken", bodies: []string{numberedDelimiters(maxNumberedBoundaries)}, hashed: true},
		{name: "delimiter after a form feed", bodies: []string{"echo a\f--//\n"}, wantBoundary: "==nodeboot-1=="},
		{name: "closing delimiter between lone CRs", bodies: []string{"#!/bin/sh\necho 'x\r--//--\r'\n"}, wantBoundary: "==nodeboot-1=="},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var parts []MIMEPart
			for _, b := range tc.bodies {
				parts = append(parts, MIMEPart{ContentType: ContentTypeShell, Body: []byte(b)})
			}
			doc, err := MIME(parts...)
			if err != nil {
				t.Fatal(err)
			}
			boundary, got := mimetest.Parts(t, doc)
			hashed := strings.HasPrefix(boundary, "==nodeboot-") && len(boundary) > len("==nodeboot-1000==")
			if tc.hashed != hashed || !tc.hashed && boundary != tc.wantBoundary {
				t.Fatalf("boundary %q, want %q (hashed %v)", boundary, tc.wantBoundary, tc.hashed)
			}
			if len(got) != len(tc.bodies) {
				t.Fatalf("%d parts, want %d:\n%s", len(got), len(tc.bodies), doc)
			}
			for i, want := range tc.bodies {
				if body := got[i].Body; string(body) != want {
					t.Errorf("part %d = %q, want %q", i+1, body, want)
				}
			}
		})
	}
}

// numberedDelimiters is a script holding the delimiter lines of "//" and
// of "==nodeboot-1==" to "==nodeboot-n==".
func numberedDelimiters(n int) string {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n--//\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "--==nodeboot-%d==\n", i)
	}
	return b.String()
}

// TestMIMEEncodesNonASCII checks that a part with bytes outside US-ASCII
// is written base64-encoded (Content-Transfer-Encoding: base64), so that
// readers that take MIME text as ASCII or UTF-8 (cloud-init decodes the
// whole user data as UTF-8 and reads unencoded parts as ASCII) get its
// bytes exactly, while ASCII parts stay as they are. Go's mime/multipart
// (nodeadm) and userdata.Split (nodeboot's own check) must read back every
// body byte for byte.
func TestMIMEEncodesNonASCII(t *testing.T) {
	tests := []struct {
		name        string
		contentType string
		body        string
		wantEncoded bool
	}{
		{name: "ASCII script", body: "#!/bin/sh\necho hi\n", wantEncoded: false},
		{name: "nested multipart stays 8bit (RFC 2045 allows no other encoding)", contentType: "multipart/mixed; boundary=IN", body: "--IN\n\nécho\n--IN--\n", wantEncoded: false},
		{name: "UTF-8 script", body: "#!/bin/sh\necho café €\n", wantEncoded: true},
		{name: "not UTF-8", body: "#!/bin/sh\necho \xff\xfe\n", wantEncoded: true},
		{name: "binary without final newline", body: "\x00\x80\x1f\x8b", wantEncoded: true},
		{name: "long UTF-8 line", body: strings.Repeat("é", 200), wantEncoded: true},
		{name: "ASCII ending in a lone CR (Go and Python differ on the line break after it)", body: "#!/bin/sh\necho a\r", wantEncoded: true},
		{name: "ASCII ending in a blank line", body: "#!/bin/sh\necho a\n\n", wantEncoded: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ct := ContentTypeShell
			if tc.contentType != "" {
				ct = tc.contentType
			}
			doc, err := MIME(MIMEPart{ContentType: ct, Body: []byte(tc.body)})
			if err != nil {
				t.Fatal(err)
			}
			_, parts := mimetest.Parts(t, doc)
			if len(parts) != 1 {
				t.Fatalf("%d parts, want 1:\n%s", len(parts), doc)
			}
			got, encoded := parts[0].Body, parts[0].Base64
			if encoded != tc.wantEncoded {
				t.Fatalf("base64 encoded: %v, want %v:\n%s", encoded, tc.wantEncoded, doc)
			}
			if string(got) != tc.body {
				t.Errorf("Go reader: body %q, want %q", got, tc.body)
			}
			docs, probs := userdata.Split(diag.Source{URI: "test"}, doc)
			if probs.HasErrors() || len(docs) != 1 || string(docs[0].Data) != tc.body {
				t.Errorf("userdata.Split: %q, %v; want the body", docs, probs)
			}
		})
	}
}

// TestMIMEWritesFilename checks that a part's filename is written as its
// Content-Disposition (cloud-init writes the part under it and runs
// scripts in the order of their names), quoted or RFC 2231-encoded as
// needed, and that userdata.Split reads it back.
func TestMIMEWritesFilename(t *testing.T) {
	tests := []struct {
		name, filename, wantHeader string
	}{
		{name: "none", filename: "", wantHeader: ""},
		{name: "token", filename: "a.sh", wantHeader: "Content-Disposition: attachment; filename=a.sh\n"},
		{name: "space", filename: "my script.sh", wantHeader: "Content-Disposition: attachment; filename=\"my script.sh\"\n"},
		{name: "non-ASCII", filename: "café.sh", wantHeader: "Content-Disposition: attachment; filename*=utf-8''caf%C3%A9.sh\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := MIME(MIMEPart{ContentType: ContentTypeShell, Filename: tc.filename, Body: []byte("#!/bin/sh\n")})
			if err != nil {
				t.Fatal(err)
			}
			want := "--//\nContent-Type: " + ContentTypeShell + "\n" + tc.wantHeader + "\n#!/bin/sh\n\n--//--\n"
			if !strings.HasSuffix(string(doc), want) {
				t.Errorf("wrote\n%s\nwant it to end with\n%s", doc, want)
			}
			docs, probs := userdata.Split(diag.Source{URI: "test"}, doc)
			if probs.HasErrors() || len(docs) != 1 || docs[0].Filename != tc.filename {
				t.Errorf("userdata.Split: %+v, %v; want filename %q", docs, probs, tc.filename)
			}
		})
	}
}
