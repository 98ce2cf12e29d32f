// Package pkitest makes certificate authorities and certificates for tests:
// ECDSA P-256 keys, PEM encoded, valid around now unless told otherwise.
package pkitest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"testing"
	"time"
)

// CA is a certificate authority.
type CA struct {
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
	// PEM is the CA certificate.
	PEM []byte
}

// Spec describes a certificate to make.
type Spec struct {
	CN  string
	Org []string
	DNS []string
	IPs []string
	// NotBefore and NotAfter default to an hour before and after now.
	NotBefore, NotAfter time.Time
	// Usage defaults to server auth.
	Usage x509.ExtKeyUsage
}

// Pair is a certificate and its key.
type Pair struct {
	Cert            *x509.Certificate
	CertPEM, KeyPEM []byte
}

// NewCA returns a self-signed CA named cn, valid for a day around now.
func NewCA(t testing.TB, cn string) *CA {
	t.Helper()
	key := newKey(t)
	tpl := &x509.Certificate{SerialNumber: serial(t), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign, SubjectKeyId: []byte(cn)}
	cert, certPEM := create(t, tpl, tpl, key, key)
	return &CA{Cert: cert, Key: key, PEM: certPEM}
}

// Issue signs a certificate for s.
func (ca *CA) Issue(t testing.TB, s Spec) Pair {
	t.Helper()
	key := newKey(t)
	tpl := template(t, s)
	tpl.AuthorityKeyId = ca.Cert.SubjectKeyId
	cert, certPEM := create(t, tpl, ca.Cert, key, ca.Key)
	return Pair{Cert: cert, CertPEM: certPEM, KeyPEM: keyPEM(t, key)}
}

// SelfSigned returns a self-signed certificate for s.
func SelfSigned(t testing.TB, s Spec) Pair {
	t.Helper()
	key := newKey(t)
	tpl := template(t, s)
	cert, certPEM := create(t, tpl, tpl, key, key)
	return Pair{Cert: cert, CertPEM: certPEM, KeyPEM: keyPEM(t, key)}
}

func template(t testing.TB, s Spec) *x509.Certificate {
	if s.NotBefore.IsZero() {
		s.NotBefore = time.Now().Add(-time.Hour)
	}
	if s.NotAfter.IsZero() {
		s.NotAfter = time.Now().Add(time.Hour)
	}
	if s.Usage == 0 {
		s.Usage = x509.ExtKeyUsageServerAuth
	}
	tpl := &x509.Certificate{SerialNumber: serial(t), Subject: pkix.Name{CommonName: s.CN, Organization: s.Org}, DNSNames: s.DNS,
		NotBefore: s.NotBefore, NotAfter: s.NotAfter, ExtKeyUsage: []x509.ExtKeyUsage{s.Usage}}
	for _, ip := range s.IPs {
		tpl.IPAddresses = append(tpl.IPAddresses, net.ParseIP(ip))
	}
	return tpl
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func serial(t testing.TB) *big.Int {
	t.Helper()
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func create(t testing.TB, tpl, parent *x509.Certificate, key, signer *ecdsa.PrivateKey) (*x509.Certificate, []byte) {
	t.Helper()
	der, err := x509.CreateCertificate(rand.Reader, tpl, parent, &key.PublicKey, signer)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func keyPEM(t testing.TB, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
}
