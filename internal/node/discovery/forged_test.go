package discovery

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// testCA is a certificate authority that can issue serving certificates.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t *testing.T, name string) testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// serving issues a certificate for 127.0.0.1.
func (ca testCA) serving(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "kube-apiserver"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func (ca testCA) pin() string { return PinOf(ca.cert) }

// kubeconfig renders a cluster-info kubeconfig with one cluster per CA
// bundle given.
func kubeconfig(server string, bundles ...[]byte) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Config\nclusters:\n")
	for i, bundle := range bundles {
		fmt.Fprintf(&b, "- name: c%d\n  cluster:\n    server: %s\n    certificate-authority-data: %s\n", i, server, base64.StdEncoding.EncodeToString(bundle))
	}
	return b.String()
}

// clusterInfoServer serves, over TLS with cert (or plain HTTP when cert is
// nil), the signed cluster-info whose kubeconfig answer(n, url) returns for
// the n-th request (from 1).
func clusterInfoServer(t *testing.T, cert *tls.Certificate, answer func(n int, url string) string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(calls.Add(1))
		if r.URL.Path != clusterInfoPath {
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": signed(answer(n, srv.URL))})
	})
	if cert == nil {
		srv.Start()
	} else {
		srv.TLS = &tls.Config{Certificates: []tls.Certificate{*cert}}
		srv.StartTLS()
	}
	t.Cleanup(srv.Close)
	return srv, &calls
}

func cat(pems ...[]byte) []byte {
	var out []byte
	for _, p := range pems {
		out = append(out, p...)
	}
	return out
}

// TestForgedClusterInfo serves cluster-info forged by someone who holds the
// bootstrap token (so the JWS verifies) and sits on the network path.
func TestForgedClusterInfo(t *testing.T) {
	cluster, attacker := newTestCA(t, "cluster"), newTestCA(t, "attacker")
	t.Run("a CA appended to the pinned one is not trusted", func(t *testing.T) {
		// The attacker's server presents its own certificate and publishes
		// the real CA (to pass the pin) followed by its own.
		cert := attacker.serving(t)
		srv, _ := clusterInfoServer(t, &cert, func(_ int, url string) string { return kubeconfig(url, cat(cluster.pem, attacker.pem)) })
		ca, err := ClusterCA(t.Context(), Request{Endpoint: srv.URL, Token: token, Pins: []string{cluster.pin()}})
		if err == nil {
			t.Fatalf("trusted a server certified by an unpinned CA; returned CA:\n%s", ca)
		}
	})
	t.Run("only pinned certificates are returned", func(t *testing.T) {
		cert := cluster.serving(t)
		srv, _ := clusterInfoServer(t, &cert, func(_ int, url string) string { return kubeconfig(url, cat(cluster.pem, attacker.pem)) })
		ca, err := ClusterCA(t.Context(), Request{Endpoint: srv.URL, Token: token, Pins: []string{cluster.pin()}})
		if err != nil {
			t.Fatal(err)
		}
		if string(ca) != string(cluster.pem) {
			t.Fatalf("returned CA bundle:\n%s\nwant only the pinned certificate", ca)
		}
	})
	t.Run("two clusters are refused", func(t *testing.T) {
		cert := cluster.serving(t)
		srv, _ := clusterInfoServer(t, &cert, func(_ int, url string) string { return kubeconfig(url, attacker.pem, cluster.pem) })
		_, err := ClusterCA(t.Context(), Request{Endpoint: srv.URL, Token: token, Pins: []string{cluster.pin()}})
		if !errors.Is(err, ErrBadClusterInfo) || !strings.Contains(err.Error(), "exactly one cluster") {
			t.Fatalf("error = %v, want ErrBadClusterInfo asking for exactly one cluster", err)
		}
	})
	t.Run("the verified re-read must match the first read", func(t *testing.T) {
		cert := cluster.serving(t)
		srv, _ := clusterInfoServer(t, &cert, func(n int, url string) string {
			if n == 1 {
				return kubeconfig(url, cluster.pem)
			}
			return kubeconfig(url, cat(cluster.pem, attacker.pem))
		})
		_, err := ClusterCA(t.Context(), Request{Endpoint: srv.URL, Token: token, Pins: []string{cluster.pin()}})
		if !errors.Is(err, ErrClusterInfoChanged) {
			t.Fatalf("error = %v, want ErrClusterInfoChanged", err)
		}
	})
	t.Run("plain HTTP is refused before any request", func(t *testing.T) {
		srv, calls := clusterInfoServer(t, nil, func(_ int, url string) string { return kubeconfig(url, cluster.pem) })
		_, err := ClusterCA(t.Context(), Request{Endpoint: srv.URL, Token: token, Pins: []string{cluster.pin()}})
		if !errors.Is(err, ErrInsecureEndpoint) {
			t.Fatalf("error = %v, want ErrInsecureEndpoint", err)
		}
		if n := calls.Load(); n != 0 {
			t.Errorf("%d requests sent over plain HTTP", n)
		}
	})
}

// FuzzClusterInfoKubeconfig: whatever a server puts in cluster-info, the
// kubeconfig parser and the pin filter return an error or CA data, and the
// filter only ever returns pinned certificates.
func FuzzClusterInfoKubeconfig(f *testing.F) {
	f.Add(kubeconfig("https://x", []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")))
	f.Add("apiVersion: v1\nclusters:\n- name: a\n  cluster: {certificate-authority-data: eA==}\n- name: a\n")
	f.Add("clusters: {}")
	f.Fuzz(func(t *testing.T, kc string) {
		ca, err := caFromKubeconfig(kc)
		if err != nil {
			if !errors.Is(err, ErrBadClusterInfo) {
				t.Fatalf("error %v is not ErrBadClusterInfo", err)
			}
			return
		}
		pinned, err := PinnedCertificates(ca, []string{"sha256:" + strings.Repeat("0", 64)})
		if err == nil {
			t.Fatalf("a certificate matched an impossible pin: %q", pinned)
		}
	})
}
