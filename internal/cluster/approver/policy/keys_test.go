package policy

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy/policytest"
)

// The CSRs under testdata/ hold keys Go refuses to create; they were made
// with OpenSSL 3.0 for policytest.Node, with SANs DNS:policytest.Node and
// IP:10.0.0.1:
//
//	openssl genrsa -out k 512
//	openssl req -new -key k -subj "/O=system:nodes/CN=system:node:ip-10-0-0-1.ec2.internal" \
//	  -addext "subjectAltName=DNS:ip-10-0-0-1.ec2.internal,IP:10.0.0.1" -sha256 -out rsa512-sha256.csr
//
// and the same with a 2048-bit DSA key (openssl dsaparam, gendsa) for
// dsa2048-sha256.csr.

func TestDecideKeysAndSignatureAlgorithms(t *testing.T) {
	rsaKey := func(bits int) crypto.Signer {
		k, err := rsa.GenerateKey(rand.Reader, bits)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	ecKey := func(c elliptic.Curve) crypto.Signer {
		k, err := ecdsa.GenerateKey(c, rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rsa2048 := rsaKey(2048)
	testdata := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}

	tests := []struct {
		name        string
		key         crypto.Signer
		alg         x509.SignatureAlgorithm
		raw         []byte
		wantReason  string
		wantMessage string
	}{
		{name: "ECDSA P-256 with SHA-256 (the kubelet's default)", key: ecKey(elliptic.P256()), alg: x509.ECDSAWithSHA256, wantReason: ReasonApproved},
		{name: "ECDSA P-384 with SHA-384", key: ecKey(elliptic.P384()), alg: x509.ECDSAWithSHA384, wantReason: ReasonApproved},
		{name: "ECDSA P-521 with SHA-512", key: ecKey(elliptic.P521()), alg: x509.ECDSAWithSHA512, wantReason: ReasonApproved},
		{name: "RSA 2048 with SHA-256", key: rsa2048, alg: x509.SHA256WithRSA, wantReason: ReasonApproved},
		{name: "RSA 2048 with RSA-PSS SHA-256", key: rsa2048, alg: x509.SHA256WithRSAPSS, wantReason: ReasonApproved},
		{name: "RSA 3072 with SHA-384", key: rsaKey(3072), alg: x509.SHA384WithRSA, wantReason: ReasonApproved},
		{name: "Ed25519", key: edKey, alg: x509.PureEd25519, wantReason: ReasonApproved},
		{
			name: "RSA 2048 with SHA-1", key: rsa2048, alg: x509.SHA1WithRSA,
			wantReason:  ReasonWeakSignatureAlgorithm,
			wantMessage: "signature algorithm SHA1-RSA is not allowed",
		},
		{
			name: "ECDSA P-256 with SHA-1", key: ecKey(elliptic.P256()), alg: x509.ECDSAWithSHA1,
			wantReason:  ReasonWeakSignatureAlgorithm,
			wantMessage: "signature algorithm ECDSA-SHA1 is not allowed",
		},
		{
			name: "RSA 1024", key: rsaKey(1024), alg: x509.SHA256WithRSA,
			wantReason:  ReasonWeakKey,
			wantMessage: "RSA key of 1024 bits is too weak; at least 2048 bits are required",
		},
		{
			name: "RSA 512, which Go would not even verify", raw: testdata("rsa512-sha256.csr"),
			wantReason:  ReasonWeakKey,
			wantMessage: "RSA key of 512 bits",
		},
		{
			name: "ECDSA P-224", key: ecKey(elliptic.P224()), alg: x509.ECDSAWithSHA256,
			wantReason:  ReasonWeakKey,
			wantMessage: "ECDSA curve P-224 is not allowed; use P-256, P-384 or P-521",
		},
		{
			name: "DSA", raw: testdata("dsa2048-sha256.csr"),
			wantReason:  ReasonUnsupportedKeyType,
			wantMessage: "DSA keys are not allowed",
		},
	}
	node := policytest.NewNode(policytest.Node)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := policytest.ValidFixture()
			f.Key, f.Request.SignatureAlgorithm, f.RawRequest = tc.key, tc.alg, tc.raw
			got := Decide(policytest.NewCSR(t, f), node, InventoryAnswer{}, Policy{})
			if got.Reason != tc.wantReason || got.Approve != (tc.wantReason == ReasonApproved) {
				t.Fatalf("Decide() = {Approve:%v Reason:%s}, want reason %s; message: %s", got.Approve, got.Reason, tc.wantReason, got.Message)
			}
			if !strings.Contains(got.Message, tc.wantMessage) {
				t.Errorf("Decide() message = %q, want it to contain %q", got.Message, tc.wantMessage)
			}
		})
	}
}
