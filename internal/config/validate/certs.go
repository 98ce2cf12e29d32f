package validate

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"fmt"
)

// CertificateAuthorityProblem says what is wrong with a decoded
// certificateAuthority value, or "" when it holds at least one PEM
// CERTIFICATE block and every such block parses as an x509 certificate.
func CertificateAuthorityProblem(ca []byte) string {
	if len(bytes.TrimSpace(ca)) == 0 {
		return "is empty; set it to the base64 of the cluster CA PEM file (base64 -w0 ca.crt) or remove it"
	}
	rest, certs := ca, 0
	for n := 1; ; n++ {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Sprintf("PEM block %d is a %q, not a CERTIFICATE; give the cluster CA certificate", n, block.Type)
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return fmt.Sprintf("PEM block %d is not a valid x509 certificate: %v", n, err)
		}
		certs++
	}
	if certs == 0 {
		return noPEMProblem(ca)
	}
	return ""
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
