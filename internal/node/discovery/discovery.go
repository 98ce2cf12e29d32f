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
	"net/url"
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
	// ErrInsecureEndpoint: the endpoint is not https://; a bootstrap token
	// must never be sent, nor a CA fetched, over plain HTTP.
	ErrInsecureEndpoint = errors.New("the API server endpoint must be https:// to join with a bootstrap token")
	// ErrClusterInfoChanged: the re-read over the verified connection does
	// not say what the first read said.
	ErrClusterInfoChanged = errors.New("cluster-info read over the verified connection differs from the first read")
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
// in the package documentation: only the certificates that match a pin
// (all of them with Unsafe) are returned and trusted.
func ClusterCA(ctx context.Context, r Request) ([]byte, error) {
	if len(r.Pins) == 0 && !r.Unsafe {
		return nil, ErrNoPin
	}
	if u, err := url.Parse(r.Endpoint); err != nil || u.Scheme != "https" {
		return nil, fmt.Errorf("%w, got %q", ErrInsecureEndpoint, r.Endpoint)
	}
	id, secret, ok := strings.Cut(r.Token, ".")
	if !ok {
		return nil, fmt.Errorf("bootstrap token must be <id>.<secret>")
	}
	first, err := fetch(ctx, r, insecureClient(r.timeout()))
	if err != nil {
		return nil, err
	}
	if err := verifySignature(first, id, secret); err != nil {
		return nil, err
	}
	ca, err := caFromKubeconfig(first.Data["kubeconfig"])
	if err != nil {
		return nil, err
	}
	if !r.Unsafe {
		if ca, err = PinnedCertificates(ca, r.Pins); err != nil {
			return nil, err
		}
	}
	again, err := fetch(ctx, r, verifiedClient(ca, r.timeout()))
	if err != nil {
		return nil, fmt.Errorf("re-reading cluster-info with the discovered CA: %w", err)
	}
	if again.Data["kubeconfig"] != first.Data["kubeconfig"] {
		return nil, ErrClusterInfoChanged
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

// caFromKubeconfig returns the CA data of the one cluster the kubeconfig
// names; more than one would make the choice arbitrary.
func caFromKubeconfig(kc string) ([]byte, error) {
	if kc == "" {
		return nil, fmt.Errorf("%w: no kubeconfig key", ErrBadClusterInfo)
	}
	cfg, err := clientcmdv1.Load([]byte(kc))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadClusterInfo, err)
	}
	if n := len(cfg.Clusters); n != 1 {
		return nil, fmt.Errorf("%w: its kubeconfig lists %d clusters; it must name exactly one cluster", ErrBadClusterInfo, n)
	}
	ca := cfg.Clusters[0].Cluster.CertificateAuthorityData
	if len(ca) == 0 {
		return nil, fmt.Errorf("%w: kubeconfig has no certificate-authority-data", ErrBadClusterInfo)
	}
	return ca, nil
}
