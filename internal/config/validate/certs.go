package validate

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"fmt"
)

// CertificateAuthorityProblem says what is wrong with a decoded
// certificateAuthority value, or "" when it is one or more PEM CERTIFICATE
// blocks, each parsing as an x509 certificate, with nothing but blank
// space around them.
func CertificateAuthorityProblem(ca []byte) string {
	if len(bytes.TrimSpace(ca)) == 0 {
		return "is empty; set it to the base64 of the cluster CA PEM file (base64 -w0 ca.crt) or remove it"
	}
	pos, certs := 0, 0 // pos: where the text after the last block starts
	for n := 1; ; n++ {
		block, after := pem.Decode(ca[pos:])
		if block == nil {
			break
		}
		end := len(ca) - len(after)
		if problem := notPEM(ca, pos, pos+bytes.LastIndex(ca[pos:end], []byte("-----BEGIN")), n-1); problem != "" {
			return problem
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Sprintf("PEM block %d is a %q, not a CERTIFICATE; give the cluster CA certificate", n, block.Type)
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return fmt.Sprintf("PEM block %d is not a valid x509 certificate: %v", n, err)
		}
		certs++
		pos = end
	}
	if certs == 0 {
		return noPEMProblem(ca)
	}
	return notPEM(ca, pos, len(ca), certs)
}

// notPEM explains text found in ca[from:to], outside the PEM blocks, after
// block n (0: before the first), or returns "" when that text is blank.
func notPEM(ca []byte, from, to, n int) string {
	i := bytes.IndexFunc(ca[from:to], func(r rune) bool { return r != ' ' && r != '\t' && r != '\r' && r != '\n' })
	if i < 0 {
		return ""
	}
	offset := from + i
	line := bytes.Count(ca[:offset], []byte("\n")) + 1
	what := ca[offset:to]
	if end := bytes.IndexByte(what, '\n'); end >= 0 {
		what = what[:end]
	}
	what = bytes.TrimRight(what, "\r")
	where := fmt.Sprintf("after PEM block %d", n)
	if n == 0 {
		where = "before PEM block 1"
	}
	return fmt.Sprintf("line %d of the decoded PEM text, %s, is not PEM (%q); remove it", line, where, clip(string(what)))
}

// clip shortens text quoted in messages.
func clip(s string) string {
	const limit = 40
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "…"
}

// noPEMProblem explains decoded bytes that hold no PEM block.
func noPEMProblem(ca []byte) string {
	if ca[0] == 0x30 {
		if _, err := x509.ParseCertificate(ca); err == nil {
			return "is a DER certificate, not PEM; base64-encode the PEM file instead (openssl x509 -inform der -in ca.der | base64 -w0)"
		}
	}
	if bytes.HasPrefix(ca, []byte("LS0tLS1CRUdJT")) {
		return "is base64-encoded twice; encode the PEM file only once (base64 -w0 ca.crt)"
	}
	return fmt.Sprintf("decodes to %d bytes without a PEM CERTIFICATE block; set it to the base64 of the cluster CA PEM file (base64 -w0 ca.crt)", len(ca))
}
