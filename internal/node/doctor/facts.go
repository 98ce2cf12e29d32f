package doctor

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/kubeleteffective"
	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
	"github.com/nodeboot/nodeboot/internal/node/render/kubelet"
	"github.com/nodeboot/nodeboot/internal/node/render/system"
)

// Kubelet defaults used when neither its config nor its flags say.
const (
	defaultCertDir          = "/var/lib/kubelet/pki"
	defaultCgroupDriver     = "cgroupfs"
	servingCertName         = "kubelet-server-current.pem"
	kubeletServiceDropInEnv = "kubelet"
)

// Files reads node paths under --root.
type Files struct{ Root string }

// Path maps a node path under the root.
func (f Files) Path(nodePath string) string {
	return filepath.Join(f.Root, filepath.Clean("/"+nodePath))
}

// Read reads a node path.
func (f Files) Read(nodePath string) ([]byte, error) {
	return os.ReadFile(f.Path(nodePath))
}

// Exists reports whether a node path exists.
func (f Files) Exists(nodePath string) bool {
	_, err := os.Stat(f.Path(nodePath))
	return err == nil
}

// KubeletFacts is how the kubelet on this node is configured: what its
// environment file, flags and config files (with drop-ins) say.
type KubeletFacts struct {
	// Args are the kubelet's flags ($NODEADM_KUBELET_ARGS).
	Args []string
	// ArgsErr says why the flags could not be read.
	ArgsErr error
	// NodeName is the name the kubelet registers under, and NameSource
	// where it comes from (--hostname-override or the host name).
	NodeName, NameSource string
	// NodeIP is --node-ip.
	NodeIP string
	// Kubeconfig and BootstrapKubeconfig are the kubelet's kubeconfig
	// paths (--kubeconfig, --bootstrap-kubeconfig).
	Kubeconfig, BootstrapKubeconfig string
	// Config is the effective kubelet configuration (config file, then
	// drop-ins, then flags).
	Config KubeletConfig
	// ConfigErr says why the config could not be read.
	ConfigErr error
	// Env is the kubelet service's environment from systemd
	// (DefaultEnvironment, then its own drop-in): proxies, AWS settings.
	Env map[string]string
}

// KubeletConfig is the part of the KubeletConfiguration the checks read.
type KubeletConfig struct {
	CgroupDriver             string `json:"cgroupDriver,omitempty"`
	ProviderID               string `json:"providerID,omitempty"`
	ServerTLSBootstrap       *bool  `json:"serverTLSBootstrap,omitempty"`
	ContainerRuntimeEndpoint string `json:"containerRuntimeEndpoint,omitempty"`
	TLSCertFile              string `json:"tlsCertFile,omitempty"`
}

// ServingCertPath is where the kubelet keeps its serving certificate.
func (k KubeletFacts) ServingCertPath() string {
	if k.Config.TLSCertFile != "" {
		return k.Config.TLSCertFile
	}
	dir := flagValue(k.Args, "cert-dir")
	if dir == "" {
		dir = defaultCertDir
	}
	return filepath.Join(dir, servingCertName)
}

// EffectiveCgroupDriver is the kubelet's cgroup driver with its default.
func (k KubeletFacts) EffectiveCgroupDriver() string {
	if k.Config.CgroupDriver == "" {
		return defaultCgroupDriver
	}
	return k.Config.CgroupDriver
}

// RuntimeEndpoint is the kubelet's container runtime endpoint.
func (k KubeletFacts) RuntimeEndpoint() string {
	if k.Config.ContainerRuntimeEndpoint == "" {
		return kubelet.ContainerRuntimeEndpoint
	}
	return k.Config.ContainerRuntimeEndpoint
}

// ReadKubeletFacts reads the kubelet's configuration under the root.
// hostname is the fallback node name (the kubelet lower-cases it).
func ReadKubeletFacts(f Files, hostname string) KubeletFacts {
	k := KubeletFacts{Env: serviceEnvironment(f)}
	env, err := readEnvFile(f, kubelet.EnvironmentPath)
	if err == nil {
		line, ok := env[kubelet.ArgsVariable]
		if ok {
			k.Args, err = kubeletWords(line)
		} else {
			err = fmt.Errorf("%s has no %s", kubelet.EnvironmentPath, kubelet.ArgsVariable)
		}
	}
	k.ArgsErr = err
	k.NodeName, k.NameSource = flagValue(k.Args, "hostname-override"), "--hostname-override"
	if k.NodeName == "" {
		k.NodeName, k.NameSource = strings.ToLower(hostname), "the host name"
	}
	k.NodeIP = flagValue(k.Args, "node-ip")
	k.Kubeconfig = flagValue(k.Args, "kubeconfig")
	if k.Kubeconfig == "" && k.ArgsErr != nil {
		k.Kubeconfig = kubelet.KubeconfigPath
	}
	k.BootstrapKubeconfig = flagValue(k.Args, "bootstrap-kubeconfig")
	if k.ArgsErr == nil {
		k.Config, k.ConfigErr = readKubeletConfig(f, flagValue(k.Args, "config"), flagValue(k.Args, "config-dir"))
	}
	for flag, field := range map[string]*string{
		"cgroup-driver": &k.Config.CgroupDriver, "provider-id": &k.Config.ProviderID,
		"container-runtime-endpoint": &k.Config.ContainerRuntimeEndpoint, "tls-cert-file": &k.Config.TLSCertFile,
	} {
		if v := flagValue(k.Args, flag); v != "" { // flags win over the config file
			*field = v
		}
	}
	return k
}

// readKubeletConfig reads the config file and its drop-ins merged as the
// kubelet merges them (kubeleteffective).
func readKubeletConfig(f Files, path, dropIns string) (KubeletConfig, error) {
	var cfg KubeletConfig
	if path == "" {
		return cfg, errors.New("the kubelet has no --config")
	}
	merged, err := kubeleteffective.Read(os.DirFS(f.Path("/")), path, dropIns)
	if err != nil {
		return cfg, fmt.Errorf("kubelet config %s: %w", path, err)
	}
	if err := json.Unmarshal(merged, &cfg); err != nil {
		return cfg, fmt.Errorf("kubelet config %s: %w", path, err)
	}
	return cfg, nil
}

// readEnvFile parses a systemd EnvironmentFile (KEY=VALUE lines).
func readEnvFile(f Files, path string) (map[string]string, error) {
	data, err := f.Read(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			out[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return out, sc.Err()
}

// serviceEnvironment is the kubelet's environment from systemd: the
// manager's DefaultEnvironment, then the kubelet's own drop-in.
func serviceEnvironment(f Files) map[string]string {
	env := map[string]string{}
	for _, src := range []struct{ path, directive string }{
		{system.ManagerEnvironmentPath, "DefaultEnvironment"},
		{system.ServiceDropInPath(kubeletServiceDropInEnv), "Environment"},
	} {
		data, err := f.Read(src.path)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			value, ok := strings.CutPrefix(strings.TrimSpace(line), src.directive+"=")
			if !ok {
				continue
			}
			for _, word := range systemdWords(value) {
				if k, v, ok := strings.Cut(word, "="); ok {
					env[k] = v
				}
			}
		}
	}
	return env
}

// systemdWords splits a systemd assignment value into words: double or
// single quoted (with backslash escapes in double quotes) or bare.
func systemdWords(s string) []string {
	var words []string
	var cur strings.Builder
	inWord, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote == '"' && c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(unescapeSystemd(s[i]))
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote, inWord = c, true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	for i, w := range words {
		words[i] = strings.ReplaceAll(w, "%%", "%")
	}
	return slices.Clip(words)
}

func unescapeSystemd(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	}
	return c
}

// flagValue returns the value the kubelet ends up with for a flag that
// keeps its last value, read as the kubelet's parser reads args.
func flagValue(args []string, name string) string {
	v, _ := kubeletflag.Value(args, name)
	return v
}

// kubeletWords splits $NODEADM_KUBELET_ARGS the way systemd does when it
// starts the kubelet (kubeletflag.SystemdWords); a value systemd would
// refuse is still split at blanks, so the other checks can go on.
func kubeletWords(line string) ([]string, error) {
	words, err := kubeletflag.SystemdWords(line)
	if err != nil {
		return strings.Fields(line), fmt.Errorf("%s: %w", kubelet.ArgsVariable, err)
	}
	return words, nil
}
