//go:build e2e

package e2e

import (
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// credentials are what a kubeconfig user authenticates with: a client
// certificate pair or a bearer token.
type credentials struct {
	certPEM, keyPEM []byte
	token           string
}

// kubeconfigBytes renders a one-context kubeconfig for server with the
// CA and credentials embedded.
func kubeconfigBytes(server string, caPEM []byte, user string, cred credentials) ([]byte, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["local"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cred.certPEM,
		ClientKeyData:         cred.keyPEM,
		Token:                 cred.token,
	}
	cfg.Contexts["default"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: user}
	cfg.CurrentContext = "default"
	out, err := clientcmd.Write(*cfg)
	if err != nil {
		return nil, fmt.Errorf("render kubeconfig for %s: %w", user, err)
	}
	return out, nil
}

// clusterInfoKubeconfig renders the kubeconfig kubeadm publishes in
// kube-public/cluster-info: one unnamed cluster, no users.
func clusterInfoKubeconfig(server string, caPEM []byte) ([]byte, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[""] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	return clientcmd.Write(*cfg)
}

// restConfig builds a client config for server with cred.
func restConfig(server string, caPEM []byte, cred credentials) *rest.Config {
	return &rest.Config{
		Host:            server,
		BearerToken:     cred.token,
		TLSClientConfig: rest.TLSClientConfig{CAData: caPEM, CertData: cred.certPEM, KeyData: cred.keyPEM},
		QPS:             100,
		Burst:           200,
	}
}
