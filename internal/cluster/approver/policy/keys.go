package policy

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"fmt"
	"slices"
)

// MinRSABits is the smallest RSA modulus approved. NIST SP 800-131A has
// disallowed smaller keys for signatures since 2014.
const MinRSABits = 2048

// allowedCurve reports whether an ECDSA curve is approved: those crypto/tls
// can use for a certificate, all at 128-bit security or more. P-224 is
// refused. (A function, not a package variable: nothing runs at init.)
func allowedCurve(c elliptic.Curve) bool {
	return c == elliptic.P256() || c == elliptic.P384() || c == elliptic.P521()
}

// allowedSignatureAlgorithms are the request signatures approved: SHA-2
// digests with RSA (PKCS#1 v1.5 or PSS) or ECDSA, and Ed25519. SHA-1 and MD5
// (collisions are practical), and DSA (deprecated by FIPS 186-5) are not.
var allowedSignatureAlgorithms = []x509.SignatureAlgorithm{
	x509.SHA256WithRSA, x509.SHA384WithRSA, x509.SHA512WithRSA,
	x509.SHA256WithRSAPSS, x509.SHA384WithRSAPSS, x509.SHA512WithRSAPSS,
	x509.ECDSAWithSHA256, x509.ECDSAWithSHA384, x509.ECDSAWithSHA512,
	x509.PureEd25519,
}

// checkPublicKey denies keys too weak to protect a serving certificate:
// RSA under MinRSABits, ECDSA on curves other than P-256/384/521, and key
// types other than RSA, ECDSA and Ed25519. It runs before the signature is
// verified, so that a key crypto/rsa refuses to use is reported as weak
// rather than as a bad signature.
func checkPublicKey(c *candidate) *Decision {
	switch k := c.req.PublicKey.(type) {
	case *rsa.PublicKey:
		if bits := k.N.BitLen(); bits < MinRSABits {
			d := deny(ReasonWeakKey, "RSA key of %d bits is too weak; at least %d bits are required", bits, MinRSABits)
			return &d
		}
	case *ecdsa.PublicKey:
		if !allowedCurve(k.Curve) {
			d := deny(ReasonWeakKey, "ECDSA curve %s is not allowed; use P-256, P-384 or P-521", k.Curve.Params().Name)
			return &d
		}
	case ed25519.PublicKey:
	default:
		d := deny(ReasonUnsupportedKeyType, "%s keys are not allowed; use ECDSA, RSA (at least %d bits) or Ed25519",
			keyTypeName(c.req.PublicKeyAlgorithm), MinRSABits)
		return &d
	}
	return nil
}

// checkSignatureAlgorithm denies requests signed with a digest or scheme
// outside allowedSignatureAlgorithms.
func checkSignatureAlgorithm(c *candidate) *Decision {
	if alg := c.req.SignatureAlgorithm; !slices.Contains(allowedSignatureAlgorithms, alg) {
		d := deny(ReasonWeakSignatureAlgorithm, "signature algorithm %s is not allowed; sign with SHA-256 or stronger (RSA, RSA-PSS, ECDSA) or Ed25519", alg)
		return &d
	}
	return nil
}

func keyTypeName(alg x509.PublicKeyAlgorithm) string {
	if alg == x509.UnknownPublicKeyAlgorithm {
		return "unknown"
	}
	return fmt.Sprint(alg)
}
