// Package mimetest reads MIME user data back for tests the way real
// readers do: Go's net/mail and mime/multipart (nodeadm's reader) for the
// structure, each part's base64 Content-Transfer-Encoding undone, and, as
// cloud-init does, nested multiparts descended and parts of gzip media
// types gunzipped (Leaves).
package mimetest

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"
	"testing"
)

// Part is one part as read back.
type Part struct {
	// ContentType is the part's Content-Type header, Media its media type.
	ContentType, Media string
	// Base64 is whether the part was written base64-encoded.
	Base64 bool
	// Body is the part's body, its transfer encoding undone.
	Body []byte
}

// Parts reads the top-level parts of the multipart message doc and
// returns its boundary and them; any error fails t.
func Parts(t testing.TB, doc []byte) (boundary string, parts []Part) {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("read message: %v\n%q", err, doc)
	}
	boundary = boundaryOf(t, msg.Header.Get("Content-Type"))
	r := multipart.NewReader(msg.Body, boundary)
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			return boundary, parts
		}
		if err != nil {
			t.Fatalf("part %d: %v\n%q", len(parts)+1, err, doc)
		}
		parts = append(parts, readPart(t, p))
	}
}

// Leaves reads doc as cloud-init does: every part that is not multipart,
// in order, nested multiparts descended, parts of a gzip media type
// gunzipped.
func Leaves(t testing.TB, doc []byte) []Part {
	t.Helper()
	_, parts := Parts(t, doc)
	return leaves(t, parts)
}

func leaves(t testing.TB, parts []Part) []Part {
	t.Helper()
	var out []Part
	for _, p := range parts {
		switch {
		case strings.HasPrefix(p.Media, "multipart/"):
			nested := append([]byte("Content-Type: "+p.ContentType+"\n\n"), p.Body...)
			out = append(out, Leaves(t, nested)...)
		case strings.Contains(p.Media, "gzip"):
			p.Body = gunzip(t, p.Media, p.Body)
			out = append(out, p)
		default:
			out = append(out, p)
		}
	}
	return out
}

// boundaryOf is the boundary parameter of a multipart Content-Type.
func boundaryOf(t testing.TB, contentType string) string {
	t.Helper()
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil || params["boundary"] == "" {
		t.Fatalf("multipart Content-Type %q: no boundary (%v)", contentType, err)
	}
	return params["boundary"]
}

// readPart reads one part, its base64 encoding undone.
func readPart(t testing.TB, p *multipart.Part) Part {
	t.Helper()
	ct := p.Header.Get("Content-Type")
	media, _, _ := mime.ParseMediaType(ct)
	body, err := io.ReadAll(p)
	if err != nil {
		t.Fatalf("%s part: %v", media, err)
	}
	b64 := strings.EqualFold(p.Header.Get("Content-Transfer-Encoding"), "base64")
	if b64 {
		if body, err = base64.StdEncoding.DecodeString(strings.NewReplacer("\n", "", "\r", "").Replace(string(body))); err != nil {
			t.Fatalf("%s part: base64: %v", media, err)
		}
	}
	return Part{ContentType: ct, Media: media, Base64: b64, Body: body}
}

// gunzip decompresses a part of a gzip media type.
func gunzip(t testing.TB, media string, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s part: %v", media, err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s part: %v", media, err)
	}
	return out
}

// Gzip is s gzipped, as a test writes a gzip part.
func Gzip(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
