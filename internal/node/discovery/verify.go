package discovery

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"slices"
	"strings"
)

// PinOf returns the "sha256:<hex>" pin of a certificate's public key, the
// format kubeadm prints as --discovery-token-ca-cert-hash.
func PinOf(cert *x509.Certificate) string {
	sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// PinnedCertificates returns, PEM-encoded, the certificates of caPEM whose
// public key matches one of pins; anything else in the bundle (another CA
// appended by whoever served it, or bytes that are no certificate) is left
// out, so it is never trusted. It fails with ErrPinMismatch when none match.
func PinnedCertificates(caPEM []byte, pins []string) ([]byte, error) {
	var out []byte
	for rest := caPEM; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil || block.Type != "CERTIFICATE" {
			continue
		}
		if slices.ContainsFunc(pins, func(p string) bool { return strings.EqualFold(strings.TrimSpace(p), PinOf(cert)) }) {
			out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: block.Bytes})...)
		}
	}
	if len(out) == 0 {
		return nil, ErrPinMismatch
	}
	return out, nil
}

// verifySignature checks the detached JWS kube-controller-manager stores as
// data["jws-kubeconfig-<token id>"]: HS256 over the kubeconfig, keyed with
// the token secret.
func verifySignature(cm configMap, id, secret string) error {
	sig, ok := cm.Data["jws-kubeconfig-"+id]
	if !ok {
		return ErrNotSigned
	}
	header, signature, ok := cutDetached(sig)
	if !ok {
		return fmt.Errorf("%w: not a detached JWS", ErrBadSignature)
	}
	if err := checkHeader(header, id); err != nil {
		return err
	}
	payload := base64.RawURLEncoding.EncodeToString([]byte(cm.Data["kubeconfig"]))
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(header + "." + payload))
	want := mac.Sum(nil)
	got, err := base64.RawURLEncoding.DecodeString(signature)
	if err != nil || !hmac.Equal(got, want) {
		return ErrBadSignature
	}
	return nil
}

// cutDetached splits "header..signature".
func cutDetached(s string) (header, signature string, ok bool) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 || parts[1] != "" {
		return "", "", false
	}
	return parts[0], parts[2], true
}

func checkHeader(header, id string) error {
	raw, err := base64.RawURLEncoding.DecodeString(header)
	if err != nil {
		return fmt.Errorf("%w: header: %w", ErrBadSignature, err)
	}
	var h struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return fmt.Errorf("%w: header: %w", ErrBadSignature, err)
	}
	if h.Alg != "HS256" || (h.Kid != "" && h.Kid != id) {
		return fmt.Errorf("%w: unexpected header alg=%q kid=%q", ErrBadSignature, h.Alg, h.Kid)
	}
	return nil
}
