package discovery

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

const (
	tokenID     = "abcdef"
	tokenSecret = "0123456789abcdef"
	token       = tokenID + "." + tokenSecret
)

func sign(kubeconfig, secret, kid string) string {
	header := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(`{"alg":"HS256","kid":%q}`, kid)))
	payload := base64.RawURLEncoding.EncodeToString([]byte(kubeconfig))
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(header + "." + payload))
	return header + ".." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// server serves cluster-info whose kubeconfig names the server's own
// (self-signed) certificate as the CA.
func server(t *testing.T, data func(kubeconfig string) map[string]string) (*httptest.Server, []byte) {
	t.Helper()
	var caPEM []byte
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != clusterInfoPath {
			http.NotFound(w, r)
			return
		}
		kc := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: \"\"\n  cluster:\n    server: %s\n    certificate-authority-data: %s\n",
			srv.URL, base64.StdEncoding.EncodeToString(caPEM))
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data(kc)})
	})
	srv.StartTLS()
	t.Cleanup(srv.Close)
	caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return srv, caPEM
}

func signed(kc string) map[string]string {
	return map[string]string{"kubeconfig": kc, "jws-kubeconfig-" + tokenID: sign(kc, tokenSecret, tokenID)}
}

func TestClusterCA(t *testing.T) {
	for _, tc := range []struct {
		name    string
		data    func(string) map[string]string
		pins    func(good string) []string
		unsafe  bool
		wantErr error
	}{
		{name: "signed and pinned", data: signed, pins: func(g string) []string { return []string{g} }},
		{name: "one of several pins", data: signed, pins: func(g string) []string { return []string{"sha256:" + fmt.Sprintf("%064x", 1), g} }},
		{name: "wrong pin", data: signed, pins: func(string) []string { return []string{"sha256:" + fmt.Sprintf("%064x", 7)} }, wantErr: ErrPinMismatch},
		{name: "no pin refused", data: signed, pins: func(string) []string { return nil }, wantErr: ErrNoPin},
		{name: "no pin but unsafe", data: signed, pins: func(string) []string { return nil }, unsafe: true},
		{name: "unsigned", data: func(kc string) map[string]string { return map[string]string{"kubeconfig": kc} },
			pins: func(g string) []string { return []string{g} }, wantErr: ErrNotSigned},
		{name: "signed with another secret", data: func(kc string) map[string]string {
			return map[string]string{"kubeconfig": kc, "jws-kubeconfig-" + tokenID: sign(kc, "ffffffffffffffff", tokenID)}
		}, pins: func(g string) []string { return []string{g} }, wantErr: ErrBadSignature},
		{name: "unsafe never skips the signature", data: func(kc string) map[string]string {
			return map[string]string{"kubeconfig": kc, "jws-kubeconfig-" + tokenID: sign(kc+"x", tokenSecret, tokenID)}
		}, pins: func(string) []string { return nil }, unsafe: true, wantErr: ErrBadSignature},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, caPEM := server(t, tc.data)
			block, _ := pem.Decode(caPEM)
			good := "sha256:" + fmt.Sprintf("%x", sha256.Sum256(mustParse(t, block.Bytes)))
			ca, err := ClusterCA(context.Background(), Request{Endpoint: srv.URL, Token: token, Pins: tc.pins(good), Unsafe: tc.unsafe})
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(ca) != string(caPEM) {
				t.Fatal("returned CA differs from the served one")
			}
		})
	}
}

func mustParse(t *testing.T, der []byte) []byte {
	t.Helper()
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c.RawSubjectPublicKeyInfo
}
