package doctor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/kubeleteffective"
	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
	"github.com/nodeboot/nodeboot/internal/config/systemdsyntax"
	"github.com/nodeboot/nodeboot/internal/inroot"
	"github.com/nodeboot/nodeboot/internal/node/render/kubelet"
)

// Kubelet defaults used when neither its config nor its flags say.
const (
	defaultCertDir      = "/var/lib/kubelet/pki"
	defaultCgroupDriver = "cgroupfs"
	servingCertName     = "kubelet-server-current.pem"
)

// Files reads node paths under --root: inside it (a symbolic link leads
// to the file inside the root, never to the host's), regular files only
// (a named pipe where a config file is expected is refused, never waited
// on), each at most maxNodeFile bytes.
type Files struct{ Root string }

// maxNodeFile bounds one node file the doctor reads (configs, kubeconfigs,
// certificates, unit files).
const maxNodeFile = 4 << 20

// Path maps a node path under the root, for what is not read as a file
// (statfs, a socket to dial).
func (f Files) Path(nodePath string) string {
	return filepath.Join(f.Root, filepath.Clean("/"+nodePath))
}

// Read reads a node file.
func (f Files) Read(nodePath string) ([]byte, error) {
	r, err := f.open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.ReadFile(filepath.Clean("/"+nodePath), maxNodeFile)
}

// ReadDir lists a node directory.
func (f Files) ReadDir(nodePath string) ([]fs.DirEntry, error) {
	r, err := f.open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	d, err := r.Dir(filepath.Clean("/" + nodePath))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadDir()
}

// Exists reports whether a node path exists.
func (f Files) Exists(nodePath string) bool {
	r, err := f.open()
	if err != nil {
		return false
	}
	defer r.Close()
	_, err = r.Stat(filepath.Clean("/" + nodePath))
	return err == nil
}

func (f Files) open() (*inroot.Root, error) {
	return inroot.Open(f.Root)
}

// FS is the node's files as an fs.FS (for kubeleteffective), read the same
// way: inside the root, regular files only.
func (f Files) FS() fs.FS { return nodeFS{f} }

// nodeFS adapts Files to fs.ReadFileFS, fs.ReadDirFS and fs.StatFS (Open
// is not needed by what reads it).
type nodeFS struct{ f Files }

func (n nodeFS) Stat(name string) (fs.FileInfo, error) {
	r, err := n.f.open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Stat(filepath.Clean("/" + name))
}

func (n nodeFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: errors.ErrUnsupported}
}

func (n nodeFS) ReadFile(name string) ([]byte, error) { return n.f.Read("/" + name) }

func (n nodeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := n.f.ReadDir("/" + name)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
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
	// UnitEnv is the environment systemd gives kubelet.service (every
	// drop-in, Environment=, EnvironmentFile=, DefaultEnvironment=).
	UnitEnv ServiceEnv
	// PID is the running kubelet's process ID (0: none found), and
	// ProcessEnv its environment: what the running kubelet actually has.
	PID        int
	ProcessEnv map[string]string
	// ContainerdEnv is the environment systemd gives containerd.service
	// (its proxy is the one image pulls go through).
	ContainerdEnv ServiceEnv
}

// Env is the kubelet's environment: the running kubelet's own when one
// runs, else the one systemd would start it with. The kubelet's
// credential plugin runs with exactly this (and nothing of the shell the
// doctor runs in), and it selects the kubelet's proxy.
func (k KubeletFacts) Env() map[string]string {
	if k.ProcessEnv != nil {
		return k.ProcessEnv
	}
	out := make(map[string]string, len(k.UnitEnv.Vars))
	for name, v := range k.UnitEnv.Vars {
		out[name] = v.Value
	}
	return out
}

// EnvSource says where the kubelet's variable name comes from.
func (k KubeletFacts) EnvSource(name string) string {
	unit, inUnit := k.UnitEnv.Vars[name]
	switch {
	case k.ProcessEnv == nil && inUnit:
		return unit.Source
	case k.ProcessEnv == nil:
		return "kubelet.service"
	case inUnit && unit.Value == k.ProcessEnv[name]:
		return fmt.Sprintf("%s, as the running kubelet (pid %d) has it", unit.Source, k.PID)
	case inUnit:
		return fmt.Sprintf("the running kubelet (pid %d); its unit now says otherwise in %s: restart the kubelet to apply it", k.PID, unit.Source)
	}
	return fmt.Sprintf("the running kubelet (pid %d), not set by its unit", k.PID)
}

// KubeletConfig is the part of the KubeletConfiguration the checks read.
type KubeletConfig struct {
	CgroupDriver             string            `json:"cgroupDriver,omitempty"`
	ProviderID               string            `json:"providerID,omitempty"`
	ServerTLSBootstrap       *bool             `json:"serverTLSBootstrap,omitempty"`
	ContainerRuntimeEndpoint string            `json:"containerRuntimeEndpoint,omitempty"`
	TLSCertFile              string            `json:"tlsCertFile,omitempty"`
	MaxPods                  int32             `json:"maxPods,omitempty"`
	Port                     int32             `json:"port,omitempty"`
	EvictionHard             map[string]string `json:"evictionHard,omitempty"`
}

// kubeletDefaultMaxPods is the kubelet's maxPods when nothing sets it.
const kubeletDefaultMaxPods = 110

// Configured reports whether nodeboot init rendered the kubelet's files.
func (k KubeletFacts) Configured() bool { return k.ArgsErr == nil }

// EffectiveMaxPods is the kubelet's maxPods: --max-pods, else the config,
// else its default.
func (k KubeletFacts) EffectiveMaxPods() int32 {
	if n, err := strconv.Atoi(flagValue(k.Args, "max-pods")); err == nil && n > 0 {
		return int32(n)
	}
	if k.Config.MaxPods > 0 {
		return k.Config.MaxPods
	}
	return kubeletDefaultMaxPods
}

// EffectivePort is the kubelet's serving port: --port, else the config,
// else 10250.
func (k KubeletFacts) EffectivePort() int32 {
	if n, err := strconv.Atoi(flagValue(k.Args, "port")); err == nil && n > 0 {
		return int32(n)
	}
	if k.Config.Port > 0 {
		return k.Config.Port
	}
	return defaultKubeletPort
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
	k := KubeletFacts{UnitEnv: unitEnvironment(f, "kubelet.service"), ContainerdEnv: unitEnvironment(f, "containerd.service")}
	if pid, ok := findProcess(f, "kubelet"); ok {
		k.PID = pid
		k.ProcessEnv, _ = processEnvironment(f, pid)
	}
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
		k.Config, k.ConfigErr = readKubeletConfig(f, k.Args)
	}
	return k
}

// readKubeletConfig reads the configuration the kubelet runs with: its
// config file and drop-ins merged, and the flags that name config fields
// over them, as the kubelet does (kubeleteffective). Without --config the
// flags still apply, over nothing.
func readKubeletConfig(f Files, args []string) (KubeletConfig, error) {
	var cfg KubeletConfig
	merged, err := []byte("{}"), error(nil)
	path := flagValue(args, "config")
	if path == "" {
		err = errors.New("the kubelet has no --config")
	} else if merged, err = kubeleteffective.Read(f.FS(), path, flagValue(args, "config-dir")); err != nil {
		err = fmt.Errorf("kubelet config %s: %w", path, err)
		merged = []byte("{}")
	}
	withFlags, ferr := kubeleteffective.ApplyFlags(merged, args)
	if ferr == nil {
		ferr = json.Unmarshal(withFlags, &cfg)
	}
	if ferr != nil && err == nil {
		err = fmt.Errorf("kubelet config %s: %w", path, ferr)
	}
	return cfg, err
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

// readEnvFile reads a systemd EnvironmentFile under the root.
func readEnvFile(f Files, path string) (map[string]string, error) {
	data, err := f.Read(path)
	if err != nil {
		return nil, err
	}
	return systemdsyntax.ParseEnvironmentFile(data), nil
}
