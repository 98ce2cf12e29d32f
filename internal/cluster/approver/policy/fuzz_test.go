package policy

import (
	"encoding/pem"
	"slices"
	"testing"

	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy/policytest"
)

// FuzzDecide feeds untrusted spec.request bytes to Decide. It must never
// panic, and an approval must only happen for a request that parses, is
// correctly signed with a strong key and algorithm, names the node and
// claims only the node's addresses.
func FuzzDecide(f *testing.F) {
	valid := policytest.ValidFixture()
	f.Add(policytest.SignRequest(f, valid.Request, nil, nil))
	block, _ := pem.Decode(policytest.SignRequest(f, valid.Request, nil, nil))
	f.Add(block.Bytes)
	f.Add([]byte("-----BEGIN CERTIFICATE REQUEST-----\n\n-----END CERTIFICATE REQUEST-----\n"))
	f.Add([]byte{})

	node := policytest.NewNode(policytest.Node)
	f.Fuzz(func(t *testing.T, request []byte) {
		fx := policytest.ValidFixture()
		fx.RawRequest = request
		d := Decide(policytest.NewCSR(t, fx), node, InventoryAnswer{}, Policy{})
		if d.Reason == "" || d.Message == "" {
			t.Fatalf("Decide() returned an empty reason or message: %+v", d)
		}
		if !d.Approve {
			return
		}
		req, err := ParseRequest(request)
		if err != nil {
			t.Fatalf("approved a request that does not parse: %v", err)
		}
		if err := req.CheckSignature(); err != nil {
			t.Fatalf("approved a request with a bad signature: %v", err)
		}
		if d := checkPublicKey(&candidate{req: req}); d != nil {
			t.Fatalf("approved a request with a weak key: %s", d.Message)
		}
		if d := checkSignatureAlgorithm(&candidate{req: req}); d != nil {
			t.Fatalf("approved a request with a weak signature: %s", d.Message)
		}
		if req.Subject.CommonName != NodeUserPrefix+policytest.Node {
			t.Fatalf("approved CN %q", req.Subject.CommonName)
		}
		for _, name := range req.DNSNames {
			if !slices.Contains(nodeDNSNames(node), name) {
				t.Fatalf("approved foreign DNS SAN %q", name)
			}
		}
		for _, ip := range req.IPAddresses {
			addr, _ := sanAddr(ip)
			if !slices.Contains(nodeIPs(node), addr) {
				t.Fatalf("approved foreign IP SAN %s", ip)
			}
		}
	})
}

// FuzzSANTags feeds raw subjectAltName extension values to the decoder
// that looks for GeneralName types crypto/x509 ignores.
func FuzzSANTags(f *testing.F) {
	f.Add(otherNameSANExtension(f, policytest.Node).Value)
	f.Add([]byte{0x30, 0x00})
	f.Add([]byte{0x30, 0x03, 0x82, 0x01, 'a'})
	f.Fuzz(func(t *testing.T, der []byte) {
		tags, err := sanTags(der)
		if err != nil && len(tags) > 0 {
			t.Fatalf("sanTags returned tags %v with error %v", tags, err)
		}
	})
}
