package nodeview

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// KubeletEnvFile is the EnvironmentFile of the AL2023 AMI's kubelet.service
// (packaging/rootfs/etc/systemd/system/kubelet.service), whose ExecStart is
// `/usr/bin/kubelet $NODEADM_KUBELET_ARGS`.
const KubeletEnvFile = "/etc/eks/kubelet/environment"

// kubelet reads the kubelet's arguments, its merged configuration and the
// files they name.
func (r *reader) kubelet() error {
	data, ok, err := r.read(KubeletEnvFile)
	if err != nil || !ok {
		return err
	}
	env := ParseEnvironmentFile(data)
	for k, v := range env {
		if k != "NODEADM_KUBELET_ARGS" {
			r.view["kubelet.env."+k] = canonical(v)
		}
	}
	flags := ParseKubeletArgs(strings.Fields(env["NODEADM_KUBELET_ARGS"]))
	config, err := r.kubeletConfig(flags)
	if err != nil {
		return err
	}
	for name, value := range flags.Values {
		if field, ok := configFlags[name]; ok {
			setField(config, field.path, field.convert(value))
			continue
		}
		r.view["kubelet.flag."+name] = canonical(value)
	}
	if len(flags.Labels) > 0 {
		r.view["kubelet.flag.node-labels"] = canonical(flags.Labels)
	}
	r.put("kubelet.config", config)
	return r.kubeletFiles(flags, config)
}

// kubeletConfig reads --config and merges the --config-dir drop-ins over it.
func (r *reader) kubeletConfig(flags KubeletFlags) (map[string]any, error) {
	config := map[string]any{}
	if p := flags.Values["config"]; p != "" {
		data, ok, err := r.read(p)
		if err != nil {
			return nil, err
		}
		if ok {
			if config, err = decodeJSONOrYAML(data); err != nil {
				return nil, fmt.Errorf("kubelet config %s: %w", p, err)
			}
		}
	}
	dir := flags.Values["config-dir"]
	if dir == "" {
		return config, nil
	}
	entries, err := os.ReadDir(filepath.Join(r.root, dir))
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	for _, e := range entries { // lexical order, *.conf only, as the kubelet reads them
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".conf") {
			continue
		}
		data, _, err := r.read(path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		patch, err := decodeJSONOrYAML(data)
		if err != nil {
			return nil, fmt.Errorf("kubelet drop-in %s/%s: %w", dir, e.Name(), err)
		}
		config = MergePatch(config, patch).(map[string]any)
	}
	return config, nil
}

// kubeletFiles reads the kubeconfigs, CA files and the credential provider
// config the kubelet is pointed at.
func (r *reader) kubeletFiles(flags KubeletFlags, config map[string]any) error {
	for _, f := range []struct{ flag, key string }{
		{"kubeconfig", "kubeconfig"},
		{"bootstrap-kubeconfig", "bootstrap-kubeconfig"},
		{"image-credential-provider-config", "credentialprovider"},
	} {
		p := flags.Values[f.flag]
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

// MergePatch applies an RFC 7386 JSON merge patch: objects merge key by
// key, null removes, anything else (arrays included) replaces. The kubelet
// merges its --config-dir drop-ins this way.
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

// KubeletFlags are parsed kubelet arguments.
type KubeletFlags struct {
	// Values holds each flag's last value (the kubelet's flag parser keeps
	// the last), except --node-labels.
	Values map[string]string
	// Labels merges every --node-labels (a map flag accumulates).
	Labels map[string]string
	// Stray are words that are not flags.
	Stray []string
}

// boolFlags are kubelet flags that take no separate value word.
var boolFlags = map[string]bool{
	"anonymous-auth": true, "cgroups-per-qos": true, "enable-controller-attach-detach": true,
	"enable-debugging-handlers": true, "enable-server": true, "exit-on-lock-contention": true,
	"fail-swap-on": true, "help": true, "kernel-memcg-notification": true,
	"local-storage-capacity-isolation": true, "make-iptables-util-chains": true,
	"protect-kernel-defaults": true, "register-node": true, "register-schedulable": true,
	"rotate-certificates": true, "rotate-server-certificates": true, "serialize-image-pulls": true,
	"seccomp-default": true, "version": true, "alsologtostderr": true, "logtostderr": true,
	"add-dir-header": true, "skip-headers": true, "one-output": true, "skip-log-headers": true,
}

// ParseKubeletArgs parses words the way the kubelet's pflag set does:
// --name=value, --name value (unless the flag is boolean), -name too.
func ParseKubeletArgs(words []string) KubeletFlags {
	f := KubeletFlags{Values: map[string]string{}}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "-") {
			f.Stray = append(f.Stray, w)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
		if !hasValue {
			if boolFlags[name] || i+1 >= len(words) {
				value = "true"
			} else {
				i++
				value = words[i]
			}
		}
		if name == "node-labels" {
			if f.Labels == nil {
				f.Labels = map[string]string{}
			}
			for _, kv := range strings.Split(value, ",") {
				if k, v, ok := strings.Cut(kv, "="); ok {
					f.Labels[k] = v
				} else if kv != "" {
					f.Labels[kv] = ""
				}
			}
			continue
		}
		f.Values[name] = value
	}
	return f
}

// configField is a KubeletConfiguration field a flag sets.
type configField struct {
	path    []string
	convert func(string) any
}

// configFlags are the flags that set KubeletConfiguration fields; given
// together with --config, the flag wins over the file and the drop-ins.
var configFlags = map[string]configField{
	"max-pods":                     {[]string{"maxPods"}, number},
	"pod-max-pids":                 {[]string{"podPidsLimit"}, number},
	"kube-api-qps":                 {[]string{"kubeAPIQPS"}, number},
	"kube-api-burst":               {[]string{"kubeAPIBurst"}, number},
	"read-only-port":               {[]string{"readOnlyPort"}, number},
	"cluster-dns":                  {[]string{"clusterDNS"}, list},
	"cluster-domain":               {[]string{"clusterDomain"}, str},
	"cgroup-driver":                {[]string{"cgroupDriver"}, str},
	"cgroup-root":                  {[]string{"cgroupRoot"}, str},
	"provider-id":                  {[]string{"providerID"}, str},
	"container-runtime-endpoint":   {[]string{"containerRuntimeEndpoint"}, str},
	"image-service-endpoint":       {[]string{"imageServiceEndpoint"}, str},
	"reserved-cpus":                {[]string{"reservedSystemCPUs"}, str},
	"node-status-update-frequency": {[]string{"nodeStatusUpdateFrequency"}, str},
	"eviction-hard":                {[]string{"evictionHard"}, evictionMap},
	"eviction-soft":                {[]string{"evictionSoft"}, evictionMap},
	"kube-reserved":                {[]string{"kubeReserved"}, kvMap},
	"system-reserved":              {[]string{"systemReserved"}, kvMap},
	"kube-reserved-cgroup":         {[]string{"kubeReservedCgroup"}, str},
	"system-reserved-cgroup":       {[]string{"systemReservedCgroup"}, str},
	"feature-gates":                {[]string{"featureGates"}, gates},
	"register-with-taints":         {[]string{"registerWithTaints"}, taints},
	"v":                            {[]string{"logging", "verbosity"}, number},
	"serialize-image-pulls":        {[]string{"serializeImagePulls"}, boolean},
	"protect-kernel-defaults":      {[]string{"protectKernelDefaults"}, boolean},
	"fail-swap-on":                 {[]string{"failSwapOn"}, boolean},
	"address":                      {[]string{"address"}, str},
	"hairpin-mode":                 {[]string{"hairpinMode"}, str},
}

func str(s string) any { return s }

func number(s string) any {
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		return n
	}
	return s
}

func boolean(s string) any {
	if b, err := strconv.ParseBool(s); err == nil {
		return b
	}
	return s
}

func list(s string) any {
	var out []any
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func kvMap(s string) any {
	out := map[string]any{}
	for _, kv := range strings.Split(s, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return out
}

func evictionMap(s string) any {
	out := map[string]any{}
	for _, kv := range strings.Split(s, ",") {
		if k, v, ok := strings.Cut(kv, "<"); ok {
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return out
}

func gates(s string) any {
	out := map[string]any{}
	for _, kv := range strings.Split(s, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				out[strings.TrimSpace(k)] = v
				continue
			}
			out[strings.TrimSpace(k)] = b
		}
	}
	return out
}

// taints parses key[=value]:Effect,… into the config's taint objects.
func taints(s string) any {
	var out []any
	for _, t := range strings.Split(s, ",") {
		kv, effect, _ := strings.Cut(t, ":")
		k, v, _ := strings.Cut(kv, "=")
		taint := map[string]any{"key": k, "effect": effect}
		if v != "" {
			taint["value"] = v
		}
		out = append(out, taint)
	}
	return out
}

// setField sets a nested field, creating maps on the way.
func setField(m map[string]any, p []string, v any) {
	for _, k := range p[:len(p)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[p[len(p)-1]] = v
}

// ParseEnvironmentFile parses a systemd EnvironmentFile: KEY=VALUE lines,
// # and ; comments, values optionally in single or double quotes (which
// are removed, with backslash escapes inside double quotes), a trailing
// backslash joining lines.
func ParseEnvironmentFile(data string) map[string]string {
	env := map[string]string{}
	data = strings.ReplaceAll(data, "\\\n", "")
	for _, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		env[strings.TrimSpace(k)] = unquote(strings.TrimSpace(v))
	}
	return env
}

// unquote removes systemd's quoting from an environment value.
func unquote(v string) string {
	var b strings.Builder
	var quote byte
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote != 0 && c == quote:
			quote = 0
		case c == '\\' && quote != '\'' && i+1 < len(v):
			i++
			b.WriteByte(v[i])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
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
