package kubeapi

import (
	"errors"
	"fmt"

	"sigs.k8s.io/yaml"
)

// Kubeconfig is the part of a kubeconfig file (clientcmd v1 Config) the
// kubelet's connection needs.
type Kubeconfig struct {
	Clusters       []NamedCluster `json:"clusters"`
	Users          []NamedUser    `json:"users"`
	Contexts       []NamedContext `json:"contexts"`
	CurrentContext string         `json:"current-context"`
}

// NamedCluster is one clusters[] entry.
type NamedCluster struct {
	Name    string  `json:"name"`
	Cluster Cluster `json:"cluster"`
}

// Cluster is where the API server is and how to trust it.
type Cluster struct {
	Server                   string `json:"server"`
	TLSServerName            string `json:"tls-server-name,omitempty"`
	CertificateAuthority     string `json:"certificate-authority,omitempty"`
	CertificateAuthorityData []byte `json:"certificate-authority-data,omitempty"`
	ProxyURL                 string `json:"proxy-url,omitempty"`
}

// NamedUser is one users[] entry.
type NamedUser struct {
	Name string `json:"name"`
	User User   `json:"user"`
}

// User is how to authenticate.
type User struct {
	ClientCertificate     string      `json:"client-certificate,omitempty"`
	ClientCertificateData []byte      `json:"client-certificate-data,omitempty"`
	ClientKey             string      `json:"client-key,omitempty"`
	ClientKeyData         []byte      `json:"client-key-data,omitempty"`
	Token                 string      `json:"token,omitempty"`
	TokenFile             string      `json:"tokenFile,omitempty"`
	Exec                  *ExecConfig `json:"exec,omitempty"`
}

// ExecConfig is a credential plugin.
type ExecConfig struct {
	Command            string       `json:"command"`
	Args               []string     `json:"args,omitempty"`
	Env                []ExecEnvVar `json:"env,omitempty"`
	APIVersion         string       `json:"apiVersion,omitempty"`
	ProvideClusterInfo bool         `json:"provideClusterInfo,omitempty"`
	InteractiveMode    string       `json:"interactiveMode,omitempty"`
}

// ExecEnvVar is an environment variable set for the plugin.
type ExecEnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// NamedContext is one contexts[] entry.
type NamedContext struct {
	Name    string  `json:"name"`
	Context Context `json:"context"`
}

// Context pairs a cluster with a user.
type Context struct {
	Cluster  string `json:"cluster"`
	AuthInfo string `json:"user"`
}

// ErrNoCurrentContext is returned when a kubeconfig does not say which
// cluster and user to use.
var ErrNoCurrentContext = errors.New("kubeconfig has no usable current context")

// ParseKubeconfig decodes a kubeconfig (YAML or JSON).
func ParseKubeconfig(data []byte) (Kubeconfig, error) {
	var k Kubeconfig
	if err := yaml.Unmarshal(data, &k); err != nil {
		return Kubeconfig{}, fmt.Errorf("decode kubeconfig: %w", err)
	}
	return k, nil
}

// Current returns the cluster and user of the current context (or of the
// only context when current-context is empty).
func (k Kubeconfig) Current() (Cluster, User, error) {
	name := k.CurrentContext
	if name == "" && len(k.Contexts) == 1 {
		name = k.Contexts[0].Name
	}
	var ctx *Context
	for i := range k.Contexts {
		if k.Contexts[i].Name == name {
			ctx = &k.Contexts[i].Context
		}
	}
	if ctx == nil {
		return Cluster{}, User{}, fmt.Errorf("%w: context %q not found", ErrNoCurrentContext, name)
	}
	var cluster *Cluster
	for i := range k.Clusters {
		if k.Clusters[i].Name == ctx.Cluster {
			cluster = &k.Clusters[i].Cluster
		}
	}
	if cluster == nil {
		return Cluster{}, User{}, fmt.Errorf("%w: cluster %q of context %q not found", ErrNoCurrentContext, ctx.Cluster, name)
	}
	for _, u := range k.Users {
		if u.Name == ctx.AuthInfo {
			return *cluster, u.User, nil
		}
	}
	return Cluster{}, User{}, fmt.Errorf("%w: user %q of context %q not found", ErrNoCurrentContext, ctx.AuthInfo, name)
}
