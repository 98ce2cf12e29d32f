package convert

import (
	"bytes"
	"strings"
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
	Body        []byte
}

// MIME writes parts, in order, as a multipart/mixed document with the
// fixed boundary MIMEBoundary, so output is byte-for-byte stable: the
// MIME-Version and Content-Type headers, then each part's Content-Type, a
// blank line and its body (ended by a newline), then the closing boundary.
func MIME(parts ...MIMEPart) []byte {
	var b bytes.Buffer
	b.WriteString("MIME-Version: 1.0\n")
	b.WriteString(`Content-Type: multipart/mixed; boundary="` + MIMEBoundary + "\"\n\n")
	for _, p := range parts {
		b.WriteString("--" + MIMEBoundary + "\n")
		b.WriteString("Content-Type: " + p.ContentType + "\n\n")
		b.Write(p.Body)
		if !strings.HasSuffix(string(p.Body), "\n") {
			b.WriteByte('\n')
		}
	}
	b.WriteString("--" + MIMEBoundary + "--\n")
	return b.Bytes()
}

// mimeDocument wraps one part in a multipart/mixed document.
func mimeDocument(contentType string, body []byte) []byte {
	return MIME(MIMEPart{ContentType: contentType, Body: body})
}
