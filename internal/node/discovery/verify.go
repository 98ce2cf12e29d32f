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
	"strings"
)

// PinOf returns the "sha256:<hex>" pin of a certificate's public key, the
// format kubeadm prints as --discovery-token-ca-cert-hash.
func PinOf(cert *x509.Certificate) string {
	sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// VerifyPins checks that some certificate in caPEM matches one of pins.
func VerifyPins(caPEM []byte, pins []string) error {
	rest := caPEM
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return ErrPinMismatch
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			continue
		}
		got := PinOf(cert)
		for _, p := range pins {
			if strings.EqualFold(strings.TrimSpace(p), got) {
				return nil
			}
		}
	}
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
