package kubeapi

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/pkitest"
)

// apiServer is a TLS server speaking the few API paths the client uses.
func apiServer(t *testing.T, token string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(v)
	}
	authed := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			cert := r.TLS != nil && len(r.TLS.PeerCertificates) > 0
			if r.Header.Get("Authorization") != "Bearer "+token && !cert {
				reply(w, http.StatusUnauthorized, Status{TypeMeta: TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure", Message: "Unauthorized", Reason: "Unauthorized", Code: 401})
				return
			}
			h(w, r)
		}
	}
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, VersionInfo{Major: "1", Minor: "34", GitVersion: "v1.34.4"})
	})
	mux.HandleFunc("POST /apis/authentication.k8s.io/v1/selfsubjectreviews", authed(func(w http.ResponseWriter, r *http.Request) {
		var in SelfSubjectReview
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Kind != "SelfSubjectReview" || r.Header.Get("Content-Type") != "application/json" {
			reply(w, 400, Status{Message: "bad review"})
			return
		}
		user := "system:node:n1"
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			user = r.TLS.PeerCertificates[0].Subject.CommonName
		}
		in.Status.UserInfo = UserInfo{Username: user, Groups: []string{NodesGroup}}
		reply(w, 201, in)
	}))
	mux.HandleFunc("GET /api/v1/nodes/{name}", authed(func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("name") != "n1" {
			reply(w, 404, Status{Message: `nodes "` + r.PathValue("name") + `" not found`, Reason: "NotFound", Code: 404})
			return
		}
		reply(w, 200, Node{Metadata: ObjectMeta{Name: "n1"}, Spec: NodeSpec{ProviderID: "aws:///z/i-1"}})
	}))
	mux.HandleFunc("GET /apis/certificates.k8s.io/v1/certificatesigningrequests", authed(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("fieldSelector") != "spec.signerName="+KubeletServingSigner {
			reply(w, 400, Status{Message: "want a signer field selector"})
			return
		}
		reply(w, 200, CertificateSigningRequestList{Items: []CertificateSigningRequest{{Metadata: ObjectMeta{Name: "csr-1"}}}})
	}))
	srv := httptest.NewUnstartedServer(mux)
	srv.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func TestClient(t *testing.T) {
	const token = "s3cr3t-bearer"
	srv := apiServer(t, token)
	ctx := context.Background()
	ca := []*x509.Certificate{srv.Certificate()}
	c, err := New(Options{Server: srv.URL, CAs: ca, Credential: Credential{Token: token}})
	if err != nil {
		t.Fatal(err)
	}
	v, res, err := c.Version(ctx)
	if err != nil || v.GitVersion != "v1.34.4" || res.Code != 200 || res.Date.IsZero() || res.Received.Before(res.Sent) {
		t.Errorf("Version = %+v, %+v, %v", v, res, err)
	}
	if u, err := c.SelfSubjectReview(ctx); err != nil || u.Username != "system:node:n1" {
		t.Errorf("SelfSubjectReview = %+v, %v", u, err)
	}
	if n, err := c.Node(ctx, "n1"); err != nil || n.Spec.ProviderID != "aws:///z/i-1" {
		t.Errorf("Node = %+v, %v", n, err)
	}
	if _, err := c.Node(ctx, "n2"); !IsStatus(err, 404) || err.Error() != `404 Not Found: nodes "n2" not found` {
		t.Errorf("Node(n2) error = %v, want 404", err)
	}
	if l, err := c.CSRs(ctx, KubeletServingSigner); err != nil || len(l) != 1 || l[0].Metadata.Name != "csr-1" {
		t.Errorf("CSRs = %+v, %v", l, err)
	}

	t.Run("rejected token", func(t *testing.T) {
		c, _ := New(Options{Server: srv.URL, CAs: ca, Credential: Credential{Token: "wrong"}})
		if _, err := c.SelfSubjectReview(ctx); !IsStatus(err, 401) || err.Error() != "401 Unauthorized: Unauthorized" {
			t.Errorf("error = %v, want 401", err)
		}
	})
	t.Run("client certificate", func(t *testing.T) {
		pair := pkitest.SelfSigned(t, pkitest.Spec{CN: "system:node:from-cert", Usage: x509.ExtKeyUsageClientAuth})
		certPEM, keyPEM := pair.CertPEM, pair.KeyPEM
		cred, err := Resolver{}.Credential(ctx, Cluster{}, User{ClientCertificateData: certPEM, ClientKeyData: keyPEM})
		if err != nil {
			t.Fatal(err)
		}
		c, _ := New(Options{Server: srv.URL, CAs: ca, Credential: cred})
		if u, err := c.SelfSubjectReview(ctx); err != nil || u.Username != "system:node:from-cert" {
			t.Errorf("SelfSubjectReview = %+v, %v", u, err)
		}
	})
	t.Run("another CA", func(t *testing.T) {
		cas, err := ParseCertificates(pkitest.NewCA(t, "other-ca").PEM)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := New(Options{Server: srv.URL, CAs: cas})
		var verr *tls.CertificateVerificationError
		if _, _, err := c.Version(ctx); !errors.As(err, &verr) {
			t.Errorf("error = %v, want a certificate verification error", err)
		}
	})
	t.Run("bad URL", func(t *testing.T) {
		if _, err := New(Options{Server: "10.0.0.1:443"}); err == nil {
			t.Error("accepted a server without scheme")
		}
	})
}
