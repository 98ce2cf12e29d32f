package kubeapi

import (
	"fmt"

	"sigs.k8s.io/yaml"

	clientcmdv1 "github.com/nodeboot/nodeboot/internal/k8sapi/clientcmd/v1"
)

// The kubeconfig types are internal/k8sapi/clientcmd/v1's, the one set the
// renderer writes and the doctor reads; these names say what the kubelet's
// connection uses them for.
type (
	// Kubeconfig is a kubeconfig file.
	Kubeconfig = clientcmdv1.Config
	// Cluster is where the API server is and how to trust it.
	Cluster = clientcmdv1.Cluster
	// User is how to authenticate (a kubeconfig's users[].user).
	User = clientcmdv1.AuthInfo
	// ExecConfig is a credential plugin.
	ExecConfig = clientcmdv1.ExecConfig
	// ExecEnvVar is an environment variable set for the plugin.
	ExecEnvVar = clientcmdv1.ExecEnvVar
)

// ErrNoCurrentContext is returned when a kubeconfig does not say which
// cluster and user to use.
var ErrNoCurrentContext = clientcmdv1.ErrNoCurrentContext

// ParseKubeconfig decodes a kubeconfig (YAML or JSON).
func ParseKubeconfig(data []byte) (Kubeconfig, error) {
	var k Kubeconfig
	if err := yaml.Unmarshal(data, &k); err != nil {
		return Kubeconfig{}, fmt.Errorf("decode kubeconfig: %w", err)
	}
	return k, nil
}
