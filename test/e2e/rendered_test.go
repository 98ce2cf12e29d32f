//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
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
	r.args = strings.Fields(line)
	cfg, err := effectiveKubeletConfig(root, flagValue(r.args, "config"), flagValue(r.args, "config-dir"))
	if err != nil {
		return r, err
	}
	r.config = cfg
	return r, nil
}

// readEnvFile parses KEY=VALUE lines (systemd EnvironmentFile subset).
func readEnvFile(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("%s: line %q is not KEY=VALUE", path, line)
		}
		out[k] = v
	}
	return out, sc.Err()
}

// effectiveKubeletConfig layers the *.conf drop-ins of dropInDir (sorted by
// name) over configPath: objects merge key by key, everything else is
// replaced, as the kubelet does for the fields this suite reads.
func effectiveKubeletConfig(root, configPath, dropInDir string) (kubeletv1beta1.KubeletConfiguration, error) {
	var cfg kubeletv1beta1.KubeletConfiguration
	if configPath == "" {
		return cfg, fmt.Errorf("kubelet args have no --config")
	}
	merged, err := readJSONObject(filepath.Join(root, configPath))
	if err != nil {
		return cfg, err
	}
	if dropInDir != "" {
		entries, err := os.ReadDir(filepath.Join(root, dropInDir))
		if err != nil {
			return cfg, err
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".conf") {
				continue
			}
			frag, err := readJSONObject(filepath.Join(root, dropInDir, e.Name()))
			if err != nil {
				return cfg, err
			}
			mergeObjects(merged, frag)
		}
	}
	data, err := json.Marshal(merged)
	if err != nil {
		return cfg, err
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return cfg, fmt.Errorf("decode merged kubelet config: %w", err)
	}
	return cfg, nil
}

func readJSONObject(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return obj, nil
}

func mergeObjects(dst, src map[string]any) {
	for k, v := range src {
		if sv, ok := v.(map[string]any); ok {
			if dv, ok := dst[k].(map[string]any); ok {
				mergeObjects(dv, sv)
				continue
			}
		}
		dst[k] = v
	}
}

// flagValue returns the value of the last --name=value in args.
func flagValue(args []string, name string) string {
	var v string
	for _, a := range args {
		if val, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			v = val
		}
	}
	return v
}

// flagValues returns the values of every --name=value in args.
func flagValues(args []string, name string) []string {
	var vs []string
	for _, a := range args {
		if val, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			vs = append(vs, val)
		}
	}
	return vs
}

// labelsFromFlags merges every --node-labels flag, later keys winning.
func labelsFromFlags(args []string) map[string]string {
	out := map[string]string{}
	for _, v := range flagValues(args, "node-labels") {
		for pair := range strings.SplitSeq(v, ",") {
			if k, val, ok := strings.Cut(pair, "="); ok {
				out[k] = val
			}
		}
	}
	return out
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	return slices.Sorted(maps.Keys(m))
}
