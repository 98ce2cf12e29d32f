// Package v1 is the kubeconfig file format (clientcmd v1, kind Config): the
// fields nodeboot writes and reads, with the JSON names of
// k8s.io/client-go/tools/clientcmd/api/v1.
package v1

// Version and Kind of a kubeconfig file.
const (
	Version = "v1"
	Kind    = "Config"
)

// Config is a kubeconfig file.
type Config struct {
	Kind           string          `json:"kind,omitempty"`
	APIVersion     string          `json:"apiVersion,omitempty"`
	Clusters       []NamedCluster  `json:"clusters"`
	AuthInfos      []NamedAuthInfo `json:"users"`
	Contexts       []NamedContext  `json:"contexts"`
	CurrentContext string          `json:"current-context"`
}

// Cluster is how to reach and trust an API server.
type Cluster struct {
	Server                   string `json:"server"`
	TLSServerName            string `json:"tls-server-name,omitempty"`
	InsecureSkipTLSVerify    bool   `json:"insecure-skip-tls-verify,omitempty"`
	CertificateAuthority     string `json:"certificate-authority,omitempty"`
	CertificateAuthorityData []byte `json:"certificate-authority-data,omitempty"`
	ProxyURL                 string `json:"proxy-url,omitempty"`
	DisableCompression       bool   `json:"disable-compression,omitempty"`
}

// AuthInfo is how a client authenticates.
type AuthInfo struct {
	ClientCertificate     string      `json:"client-certificate,omitempty"`
	ClientCertificateData []byte      `json:"client-certificate-data,omitempty"`
	ClientKey             string      `json:"client-key,omitempty"`
	ClientKeyData         []byte      `json:"client-key-data,omitempty"`
	Token                 string      `json:"token,omitempty"`
	TokenFile             string      `json:"tokenFile,omitempty"`
	Exec                  *ExecConfig `json:"exec,omitempty"`
}

// Context names a cluster and a user.
type Context struct {
	Cluster   string `json:"cluster"`
	AuthInfo  string `json:"user"`
	Namespace string `json:"namespace,omitempty"`
}

// NamedCluster is a Cluster with its name.
type NamedCluster struct {
	Name    string  `json:"name"`
	Cluster Cluster `json:"cluster"`
}

// NamedContext is a Context with its name.
type NamedContext struct {
	Name    string  `json:"name"`
	Context Context `json:"context"`
}

// NamedAuthInfo is an AuthInfo with its name.
type NamedAuthInfo struct {
	Name     string   `json:"name"`
	AuthInfo AuthInfo `json:"user"`
}

// ExecConfig runs a credential plugin.
type ExecConfig struct {
	Command            string              `json:"command"`
	Args               []string            `json:"args"`
	Env                []ExecEnvVar        `json:"env"`
	APIVersion         string              `json:"apiVersion,omitempty"`
	InstallHint        string              `json:"installHint,omitempty"`
	ProvideClusterInfo bool                `json:"provideClusterInfo"`
	InteractiveMode    ExecInteractiveMode `json:"interactiveMode,omitempty"`
}

// ExecEnvVar is one environment variable of a credential plugin.
type ExecEnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ExecInteractiveMode says whether a credential plugin may read stdin.
type ExecInteractiveMode string

// Interactive modes.
const (
	NeverExecInteractiveMode       ExecInteractiveMode = "Never"
	IfAvailableExecInteractiveMode ExecInteractiveMode = "IfAvailable"
	AlwaysExecInteractiveMode      ExecInteractiveMode = "Always"
)
