package discovery

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	clientcmdv1 "github.com/nodeboot/nodeboot/internal/k8sapi/clientcmd/v1"
)

// Errors callers can test for.
var (
	ErrNoPin          = errors.New("no CA public key pin given (set caCertHashes, or unsafeSkipCAVerification to trust the first CA seen)")
	ErrPinMismatch    = errors.New("cluster CA does not match any pinned public key hash")
	ErrNotSigned      = errors.New("cluster-info is not signed for this bootstrap token (is the token valid and kube-controller-manager's bootstrapsigner running?)")
	ErrBadSignature   = errors.New("cluster-info signature does not verify with this bootstrap token")
	ErrBadClusterInfo = errors.New("cluster-info ConfigMap is malformed")
)

// clusterInfoPath is the ConfigMap kubeadm publishes for joining nodes.
const clusterInfoPath = "/api/v1/namespaces/kube-public/configmaps/cluster-info"

// Request describes one discovery.
type Request struct {
	// Endpoint is the API server URL, e.g. https://10.0.0.10:6443.
	Endpoint string
	// Token is the bootstrap token "<id>.<secret>".
	Token string
	// Pins are "sha256:<hex>" hashes of the CA's SubjectPublicKeyInfo.
	Pins []string
	// Unsafe skips the pin check (never the signature check).
	Unsafe bool
	// Timeout bounds each HTTP request; 0 means 10 s.
	Timeout time.Duration
}

// ClusterCA returns the PEM CA bundle of the cluster, verified as described
// in the package documentation.
func ClusterCA(ctx context.Context, r Request) ([]byte, error) {
	if len(r.Pins) == 0 && !r.Unsafe {
		return nil, ErrNoPin
	}
	id, secret, ok := strings.Cut(r.Token, ".")
	if !ok {
		return nil, fmt.Errorf("bootstrap token must be <id>.<secret>")
	}
	cm, err := fetch(ctx, r, insecureClient(r.timeout()))
	if err != nil {
		return nil, err
	}
	if err := verifySignature(cm, id, secret); err != nil {
		return nil, err
	}
	ca, err := caFromKubeconfig(cm.Data["kubeconfig"])
	if err != nil {
		return nil, err
	}
	if !r.Unsafe {
		if err := VerifyPins(ca, r.Pins); err != nil {
			return nil, err
		}
	}
	if _, err := fetch(ctx, r, verifiedClient(ca, r.timeout())); err != nil {
		return nil, fmt.Errorf("re-reading cluster-info with the discovered CA: %w", err)
	}
	return ca, nil
}

func (r Request) timeout() time.Duration {
	if r.Timeout > 0 {
		return r.Timeout
	}
	return 10 * time.Second
}

type configMap struct {
	Data map[string]string `json:"data"`
}

func fetch(ctx context.Context, r Request, client *http.Client) (configMap, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(r.Endpoint, "/")+clusterInfoPath, nil)
	if err != nil {
		return configMap{}, fmt.Errorf("cluster-info request: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return configMap{}, fmt.Errorf("get cluster-info: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return configMap{}, fmt.Errorf("read cluster-info: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return configMap{}, fmt.Errorf("get cluster-info: HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
	}
	var cm configMap
	if err := json.Unmarshal(body, &cm); err != nil {
		return configMap{}, fmt.Errorf("%w: %w", ErrBadClusterInfo, err)
	}
	return cm, nil
}

// insecureClient is used only for the first read: what it returns is not
// trusted until the signature and the pin are checked.
func insecureClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: &http.Transport{
		Proxy:           http.ProxyFromEnvironment,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}, //nolint:gosec // verified below by JWS + pin
	}}
}

func verifiedClient(caPEM []byte, timeout time.Duration) *http.Client {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	return &http.Client{Timeout: timeout, Transport: &http.Transport{
		Proxy:           http.ProxyFromEnvironment,
		TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
	}}
}

func caFromKubeconfig(kc string) ([]byte, error) {
	if kc == "" {
		return nil, fmt.Errorf("%w: no kubeconfig key", ErrBadClusterInfo)
	}
	cfg, err := clientcmdv1.Load([]byte(kc))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadClusterInfo, err)
	}
	for _, c := range cfg.Clusters { // the first, in file order
		if len(c.Cluster.CertificateAuthorityData) > 0 {
			return c.Cluster.CertificateAuthorityData, nil
		}
	}
	return nil, fmt.Errorf("%w: kubeconfig has no certificate-authority-data", ErrBadClusterInfo)
}
