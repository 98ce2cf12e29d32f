//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"

	"github.com/nodeboot/nodeboot/internal/config/kubeleteffective"
	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
	"github.com/nodeboot/nodeboot/internal/config/systemdsyntax"
)

// Paths nodeadm (and so nodeboot) writes on the node.
const (
	kubeletEnvFile       = "/etc/eks/kubelet/environment"
	kubeletArgsVar       = "NODEADM_KUBELET_ARGS"
	kubeletConfigFile    = "/etc/kubernetes/kubelet/config.json"
	kubeletConfigDir     = "/etc/kubernetes/kubelet/config.json.d"
	kubeletKubeconfig    = "/var/lib/kubelet/kubeconfig"
	bootstrapKubeconfig  = "/var/lib/kubelet/bootstrap-kubeconfig"
	clusterCAFile        = "/etc/kubernetes/pki/ca.crt"
	containerdConfigFile = "/etc/containerd/config.toml"
	baseRuntimeSpecFile  = "/etc/containerd/base-runtime-spec.json"
	kubeletPKIDir        = "/var/lib/kubelet/pki"
)

// rendered is what the agent wrote, as the kubelet will read it.
type rendered struct {
	// env is the kubelet environment file, KEY -> value.
	env map[string]string
	// args are the kubelet's command-line flags ($NODEADM_KUBELET_ARGS,
	// word-split like systemd does).
	args []string
	// config is config.json with the drop-ins of --config-dir applied.
	config kubeletv1beta1.KubeletConfiguration
}

// readRendered reads the kubelet's inputs under root.
func readRendered(root string) (rendered, error) {
	var r rendered
	env, err := readEnvFile(filepath.Join(root, kubeletEnvFile))
	if err != nil {
		return r, err
	}
	r.env = env
	line, ok := env[kubeletArgsVar]
	if !ok {
		return r, fmt.Errorf("%s has no %s", kubeletEnvFile, kubeletArgsVar)
	}
	if r.args, err = kubeletflag.SystemdWords(line); err != nil {
		return r, fmt.Errorf("%s: %w", kubeletArgsVar, err)
	}
	// The configuration as the kubelet merges it, read with the doctor's
	// code (kubeleteffective).
	merged, err := kubeleteffective.Read(os.DirFS(root), flagValue(r.args, "config"), flagValue(r.args, "config-dir"))
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(merged, &r.config); err != nil {
		return r, fmt.Errorf("decode merged kubelet config: %w", err)
	}
	return r, nil
}

// flagValue returns the value the kubelet ends up with for a flag that
// keeps its last value (kubeletflag, the rule the agent and the doctor use).
func flagValue(args []string, name string) string {
	v, _ := kubeletflag.Value(args, name)
	return v
}

// readEnvFile reads a systemd EnvironmentFile as systemd does.
func readEnvFile(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return systemdsyntax.ParseEnvironmentFile(data), nil
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	return slices.Sorted(maps.Keys(m))
}
