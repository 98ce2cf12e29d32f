package nodeview

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"

	"github.com/nodeboot/nodeboot/internal/config/kubeleteffective"
	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
	"github.com/nodeboot/nodeboot/internal/config/systemdsyntax"
)

// KubeletEnvFile is the EnvironmentFile of the AL2023 AMI's kubelet.service
// (packaging/rootfs/etc/systemd/system/kubelet.service), whose ExecStart is
// `/usr/bin/kubelet $NODEADM_KUBELET_ARGS`.
const KubeletEnvFile = "/etc/eks/kubelet/environment"

// kubelet reads the kubelet's arguments, the configuration it runs with
// and the files they name, through the rules the agent and the doctor use
// (kubeletflag, kubeleteffective): the same reading for both agents' nodes.
func (r *reader) kubelet() error {
	data, ok, err := r.read(KubeletEnvFile)
	if err != nil || !ok {
		return err
	}
	env := systemdsyntax.ParseEnvironmentFile([]byte(data))
	for k, v := range env {
		if k != "NODEADM_KUBELET_ARGS" {
			r.view["kubelet.env."+k] = canonical(v)
		}
	}
	args, err := kubeletflag.SystemdWords(env["NODEADM_KUBELET_ARGS"])
	if err != nil {
		return fmt.Errorf("NODEADM_KUBELET_ARGS: %w", err)
	}
	config, err := r.kubeletConfig(args)
	if err != nil {
		return err
	}
	r.kubeletFlags(args)
	r.put("kubelet.config", config)
	return r.kubeletFiles(args, config)
}

// kubeletFlags puts the flags that name no config field: each one's final
// value, the node labels as the map the kubelet adds them up to.
func (r *reader) kubeletFlags(args []string) {
	flags, _ := kubeletflag.Parse(args)
	for _, f := range flags {
		if _, isField := kubeletflag.FormByFlag(f.Name); isField || f.Name == "node-labels" {
			continue
		}
		v, _ := kubeletflag.Last(flags, f.Name)
		if !f.HasValue && kubeletflag.IsBool(f.Name) {
			v = "true"
		}
		r.view["kubelet.flag."+f.Name] = canonical(v)
	}
	if _, labels, _ := kubeletflag.Labels(flags); len(labels) > 0 {
		r.view["kubelet.flag.node-labels"] = canonical(labels)
	}
}

// kubeletConfig reads --config with the --config-dir drop-ins merged and
// the flags that name config fields applied, as the kubelet does.
func (r *reader) kubeletConfig(args []string) (map[string]any, error) {
	merged := []byte("{}")
	if p, _ := kubeletflag.Value(args, "config"); p != "" {
		dir, _ := kubeletflag.Value(args, "config-dir")
		var err error
		if merged, err = kubeleteffective.Read(seenFS{r}, p, dir); errors.Is(err, fs.ErrNotExist) {
			merged = []byte("{}")
		} else if err != nil {
			return nil, fmt.Errorf("kubelet config %s: %w", p, err)
		}
	}
	withFlags, err := kubeleteffective.ApplyFlags(merged, args)
	if err != nil {
		return nil, err
	}
	return decodeJSONOrYAML(string(withFlags))
}

// seenFS is the node's root as an fs.FS that marks every file opened as
// seen (read by a semantic reader).
type seenFS struct{ r *reader }

// Open opens a node file under the root.
func (s seenFS) Open(name string) (fs.File, error) {
	f, err := os.DirFS(s.r.root).Open(name)
	if err == nil {
		if st, serr := f.Stat(); serr == nil && st.Mode().IsRegular() {
			s.r.seen[path.Clean("/"+name)] = true
		}
	}
	return f, err
}

// kubeletFiles reads the kubeconfigs, CA files and the credential provider
// config the kubelet is pointed at.
func (r *reader) kubeletFiles(args []string, config map[string]any) error {
	for _, f := range []struct{ flag, key string }{
		{"kubeconfig", "kubeconfig"},
		{"bootstrap-kubeconfig", "bootstrap-kubeconfig"},
		{"image-credential-provider-config", "credentialprovider"},
	} {
		p, _ := kubeletflag.Value(args, f.flag)
		if p == "" {
			continue
		}
		data, ok, err := r.read(p)
		if err != nil {
			return err
		}
		if !ok {
			r.view[f.key] = `"(missing file)"`
			continue
		}
		doc, err := decodeJSONOrYAML(data)
		if err != nil {
			return fmt.Errorf("%s %s: %w", f.flag, p, err)
		}
		r.put(f.key, doc)
		if err := r.caFiles(f.key, doc); err != nil {
			return err
		}
	}
	if ca, ok := lookup(config, "authentication", "x509", "clientCAFile").(string); ok && ca != "" {
		return r.caFile("kubelet.config.authentication.x509.clientCAFile", ca)
	}
	return nil
}

// caFiles reads the certificate-authority files a kubeconfig names.
func (r *reader) caFiles(key string, kubeconfig map[string]any) error {
	clusters, _ := kubeconfig["clusters"].([]any)
	for i, c := range clusters {
		if p, ok := lookup(c, "cluster", "certificate-authority").(string); ok && p != "" {
			if err := r.caFile(fmt.Sprintf("%s.clusters[%d].certificate-authority", key, i), p); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *reader) caFile(key, p string) error {
	data, ok, err := r.read(p)
	if err != nil {
		return err
	}
	if !ok {
		data = "(missing file)"
	}
	r.view[key+"@content"] = canonical(data)
	return nil
}

// lookup walks nested maps.
func lookup(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// MergePatch applies an RFC 7386 JSON merge patch to decoded values:
// objects merge key by key, null removes, anything else (arrays included)
// replaces. The containerd reader merges imported tables this way; the
// kubelet's drop-ins go through kubeleteffective.
func MergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	out := make(map[string]any, len(t))
	for k, v := range t {
		out[k] = v
	}
	for k, v := range p {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = MergePatch(out[k], v)
	}
	return out
}

// SortedKeys returns m's keys in order (for messages).
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
