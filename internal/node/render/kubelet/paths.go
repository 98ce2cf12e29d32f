package kubelet

import "io/fs"

// Paths on the node, exactly as nodeadm writes them.
const (
	// ConfigPath is the base KubeletConfiguration.
	ConfigPath = "/etc/kubernetes/kubelet/config.json"
	// ConfigDir is the kubelet drop-in directory (--config-dir).
	ConfigDir = "/etc/kubernetes/kubelet/config.json.d"
	// DropInPath is the user's kubelet.config fragment.
	DropInPath = ConfigDir + "/40-nodeadm.conf"
	// KubeconfigPath is the kubelet's kubeconfig (--kubeconfig). With TLS
	// bootstrap the kubelet writes it itself.
	KubeconfigPath = "/var/lib/kubelet/kubeconfig"
	// BootstrapKubeconfigPath is the TLS bootstrap kubeconfig (--bootstrap-kubeconfig).
	BootstrapKubeconfigPath = "/var/lib/kubelet/bootstrap-kubeconfig"
	// CACertPath is the cluster CA bundle.
	CACertPath = "/etc/kubernetes/pki/ca.crt"
	// CredentialProviderConfigPath is the image credential provider config.
	CredentialProviderConfigPath = "/etc/eks/image-credential-provider/config.json"
	// EnvironmentPath is the EnvironmentFile of kubelet.service.
	EnvironmentPath = "/etc/eks/kubelet/environment"
	// ContainerRuntimeEndpoint is containerd's CRI socket.
	ContainerRuntimeEndpoint = "unix:///run/containerd/containerd.sock"
	// RuntimeCgroups is containerd's cgroup (--runtime-cgroups).
	RuntimeCgroups = "/runtime.slice/containerd.service"
)

// File modes. Kubeconfigs may carry a bootstrap token, so they are private.
const (
	publicMode  fs.FileMode = 0o644
	privateMode fs.FileMode = 0o600
)

// ManagedPaths lists the paths Render owns outright: when Render does not
// return one of them, it should not exist on the node (e.g. the drop-in after
// the user removed kubelet.config, or the credential provider config when no
// binary is installed). KubeconfigPath and CACertPath are deliberately not
// listed: with TLS bootstrap the kubelet writes the kubeconfig itself, and
// bootstrap-token discovery writes the CA.
func ManagedPaths() []string {
	return []string{
		ConfigPath,
		DropInPath,
		BootstrapKubeconfigPath,
		CredentialProviderConfigPath,
		EnvironmentPath,
	}
}
