package convert

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/multipart"
	"strings"
	"unicode/utf8"
)

// MIMEBoundary is the boundary EKS managed node groups and Karpenter use.
const MIMEBoundary = "//"

// Content types of the parts nodeboot writes.
const (
	ContentTypeNodeConfig = "application/node.eks.aws"
	ContentTypeShell      = `text/x-shellscript; charset="us-ascii"`
)

// MIMEPart is one part of a multipart user-data document.
type MIMEPart struct {
	// ContentType is the part's Content-Type header value.
	ContentType string
	// Filename, if set, is written as Content-Disposition: attachment;
	// filename=…: cloud-init names the part's file after it and runs
	// scripts in the order of their names.
	Filename string
	Body     []byte
}

// MIME writes parts, in order, as a multipart/mixed document with the
// boundary Boundary picks (MIMEBoundary unless a part holds its delimiter),
// so output is byte-for-byte stable: the MIME-Version and Content-Type
// headers, then each part (see writePart), then the closing boundary.
func MIME(parts ...MIMEPart) ([]byte, error) {
	boundary, err := Boundary(parts)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("MIME-Version: 1.0\n")
	b.WriteString(`Content-Type: multipart/mixed; boundary="` + boundary + "\"\n\n")
	for _, p := range parts {
		writePart(&b, boundary, p)
	}
	b.WriteString("--" + boundary + "--\n")
	return b.Bytes(), nil
}

// writePart writes the delimiter line, the part's Content-Type (and
// Content-Disposition with its filename, if any), a blank line, its body
// and a line break: RFC 2046 makes the line break before a
// delimiter part of the delimiter, and every reader (Go's mime/multipart
// in nodeadm, Python's email package in cloud-init, userdata.Split) drops
// one, so one is written after every body, even one ending in a line
// break, for the body to be read back whole. A body ending in a lone CR
// is written base64-encoded: there the readers disagree on what the line
// break is (Python drops the CR LF a CR and an LF make, Go only the LF).
// So is a body with bytes outside US-ASCII, in lines of 76 characters,
// under Content-Transfer-Encoding: base64: cloud-init decodes the whole user
// data as UTF-8 (it fails on other bytes) and reads an unencoded part's
// text as ASCII (it garbles the rest), while it, nodeadm (which sniffs
// base64 in NodeConfig parts) and nodeboot all decode base64 parts. A
// nested multipart is written as is: RFC 2045 allows it no encoding.
func writePart(b *bytes.Buffer, boundary string, p MIMEPart) {
	b.WriteString("--" + boundary + "\n")
	b.WriteString("Content-Type: " + p.ContentType + "\n")
	if p.Filename != "" {
		if cd := mime.FormatMediaType("attachment", map[string]string{"filename": p.Filename}); cd != "" {
			b.WriteString("Content-Disposition: " + cd + "\n")
		}
	}
	plain := isASCII(p.Body) && !bytes.HasSuffix(p.Body, []byte("\r"))
	if plain || strings.HasPrefix(strings.ToLower(p.ContentType), "multipart/") {
		b.WriteString("\n")
		b.Write(p.Body)
		b.WriteString("\n")
		return
	}
	b.WriteString("Content-Transfer-Encoding: base64\n\n")
	enc := base64.StdEncoding.EncodeToString(p.Body)
	for len(enc) > base64LineLen {
		b.WriteString(enc[:base64LineLen] + "\n")
		enc = enc[base64LineLen:]
	}
	b.WriteString(enc + "\n")
}

// base64LineLen is RFC 2045's longest line of base64 text.
const base64LineLen = 76

// isASCII reports whether every byte of b is US-ASCII.
func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// maxNumberedBoundaries bounds the numbered boundaries Boundary tries;
// parts holding that many delimiter lines get a content-derived one.
const maxNumberedBoundaries = 100

// maxHashedBoundaries bounds the content-derived boundaries Boundary tries.
const maxHashedBoundaries = 16

// ErrNoBoundary is returned when no boundary Boundary tries is free.
var ErrNoBoundary = errors.New("no MIME boundary fits the parts: every boundary tried starts a line of a part")

// Boundary returns the boundary MIME writes parts with: MIMEBoundary,
// unless a line of a part starts with its delimiter ("--//", which every
// MIME reader takes for the end of the part), then the first of
// "==nodeboot-1==", "==nodeboot-2==", … that starts no line of any part,
// and after maxNumberedBoundaries of them "==nodeboot-<hex>==", where hex
// is a SHA-256 digest of the parts (a part cannot hold the digest of
// itself). Each is a boundary Go's mime/multipart writer accepts (RFC 2046:
// 1 to 70 characters of its set).
func Boundary(parts []MIMEPart) (string, error) {
	for i := 0; i < maxNumberedBoundaries+maxHashedBoundaries; i++ {
		b := MIMEBoundary
		switch {
		case i > maxNumberedBoundaries:
			b = hashedBoundary(parts, i)
		case i > 0:
			b = fmt.Sprintf("==nodeboot-%d==", i)
		}
		if validBoundary(b) && !delimitsAny(b, parts) {
			return b, nil
		}
	}
	return "", ErrNoBoundary
}

// hashedBoundary derives a boundary from the parts and a counter.
func hashedBoundary(parts []MIMEPart, i int) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d\n", i)
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s\n%d:", len(p.ContentType), p.ContentType, len(p.Body))
		h.Write(p.Body)
	}
	return "==nodeboot-" + hex.EncodeToString(h.Sum(nil)[:16]) + "=="
}

// validBoundary reports whether Go's mime/multipart writer accepts b.
func validBoundary(b string) bool {
	return multipart.NewWriter(nil).SetBoundary(b) == nil
}

// delimitsAny reports whether a line of a part starts with b's delimiter,
// as mime/multipart's reader recognises one (leading "--" and the
// boundary, whatever follows). Lines end at LF, CR LF or a lone CR: Python's
// email package, which cloud-init reads user data with, breaks lines at
// each, so a delimiter after a lone CR ends the part for it. To be safe
// with every Python version, the other breaks str.splitlines knows end a
// line too.
func delimitsAny(boundary string, parts []MIMEPart) bool {
	delim := []byte("--" + boundary)
	for _, p := range parts {
		for _, line := range bytes.FieldsFunc(p.Body, isLineBreak) {
			if bytes.HasPrefix(bytes.TrimLeft(line, " \t"), delim) {
				return true
			}
		}
	}
	return false
}

// isLineBreak reports whether r ends a line for Python's str.splitlines
// (LF, CR, VT, FF, FS, GS, RS, NEL, LS, PS).
func isLineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// mimeDocument wraps one part in a multipart/mixed document.
func mimeDocument(contentType string, body []byte) ([]byte, error) {
	return MIME(MIMEPart{ContentType: contentType, Body: body})
}
