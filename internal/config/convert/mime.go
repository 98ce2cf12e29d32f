package convert

import (
	"bytes"
	"strings"
)

// mimeBoundary is the boundary EKS managed node groups and Karpenter use.
const mimeBoundary = "//"

// Content types of the parts nodeboot writes.
const (
	contentTypeNodeConfig = "application/node.eks.aws"
	contentTypeShell      = `text/x-shellscript; charset="us-ascii"`
)

// mimeDocument wraps one part in a multipart/mixed document with a fixed
// boundary, so output is byte-for-byte stable.
func mimeDocument(contentType string, body []byte) []byte {
	var b bytes.Buffer
	b.WriteString("MIME-Version: 1.0\n")
	b.WriteString(`Content-Type: multipart/mixed; boundary="` + mimeBoundary + "\"\n\n")
	b.WriteString("--" + mimeBoundary + "\n")
	b.WriteString("Content-Type: " + contentType + "\n\n")
	b.Write(body)
	if !strings.HasSuffix(string(body), "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("--" + mimeBoundary + "--\n")
	return b.Bytes()
}
