package bottlerocket

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"

	"github.com/nodeboot/nodeboot/internal/config/validate/suggest"
	kubeletv1beta1 "github.com/nodeboot/nodeboot/internal/k8sapi/kubeletconfig/v1beta1"
)

// blockedExtraConfig lists the KubeletConfiguration keys Bottlerocket
// refuses in kubelet-extra-config, with the setting to use instead.
var blockedExtraConfig = map[string]string{
	"clusterDomain":               "settings.kubernetes.cluster-domain",
	"clusterDNS":                  "settings.kubernetes.cluster-dns-ip",
	"maxPods":                     "settings.kubernetes.max-pods",
	"staticPodPath":               "settings.kubernetes.static-pods",
	"podPidsLimit":                "settings.kubernetes.pod-pids-limit",
	"kubeReserved":                "settings.kubernetes.kube-reserved",
	"systemReserved":              "settings.kubernetes.system-reserved",
	"evictionHard":                "settings.kubernetes.eviction-hard",
	"evictionSoft":                "settings.kubernetes.eviction-soft",
	"evictionSoftGracePeriod":     "settings.kubernetes.eviction-soft-grace-period",
	"evictionMaxPodGracePeriod":   "settings.kubernetes.eviction-max-pod-grace-period",
	"imageGCHighThresholdPercent": "settings.kubernetes.image-gc-high-threshold-percent",
	"imageGCLowThresholdPercent":  "settings.kubernetes.image-gc-low-threshold-percent",
	"cpuManagerPolicy":            "settings.kubernetes.cpu-manager-policy",
	"cpuManagerReconcilePeriod":   "settings.kubernetes.cpu-manager-reconcile-period",
	"topologyManagerPolicy":       "settings.kubernetes.topology-manager-policy",
	"topologyManagerScope":        "settings.kubernetes.topology-manager-scope",
	"cpuCFSQuota":                 "settings.kubernetes.cpu-cfs-quota-enforced",
	"allowedUnsafeSysctls":        "settings.kubernetes.allowed-unsafe-sysctls",
	"authentication":              "",
	"authorization":               "",
	"tlsCertFile":                 "",
	"tlsPrivateKeyFile":           "",
	"containerRuntimeEndpoint":    "",
	"imageServiceEndpoint":        "",
	"podInfraContainerImage":      "",
	"resolvConf":                  "",
	"registerNode":                "",
}

// kubeletFields lists the top-level KubeletConfiguration JSON keys.
var kubeletFields = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	t := reflect.TypeFor[kubeletv1beta1.KubeletConfiguration]()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous || name == "" || name == "-" {
			continue
		}
		out[name] = true
	}
	return out
})

// kubeletExtraConfig reads kubelet-extra-config, base64 of a YAML
// KubeletConfiguration fragment, into spec.kubelet.config key by key.
func (d *decoder) kubeletExtraConfig(p keyPath, v any) {
	s, ok := d.str(p, v)
	if !ok {
		return
	}
	text, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		d.errorf(p, "is not valid base64; give the base64 of a YAML KubeletConfiguration fragment")
		return
	}
	js, err := yaml.YAMLToJSON(text)
	var fragment map[string]json.RawMessage
	if err == nil {
		err = json.Unmarshal(js, &fragment)
	}
	if err != nil {
		d.errorf(p, "must be a YAML mapping of KubeletConfiguration fields: %v", err)
		return
	}
	for _, key := range sortedKeys(fragment) {
		d.extraConfigKey(p, key, fragment[key])
	}
}

// extraConfigKey checks and sets one key of kubelet-extra-config.
func (d *decoder) extraConfigKey(p keyPath, key string, raw json.RawMessage) {
	if setting, blocked := blockedExtraConfig[key]; blocked {
		if setting == "" {
			d.errorf(p, "key %q is managed by Bottlerocket and may not be set here", key)
		} else {
			d.errorf(p, "key %q may not be set here; use %s", key, setting)
		}
		return
	}
	if !kubeletFields()[key] {
		msg := fmt.Sprintf("key %q is not a KubeletConfiguration field", key)
		if near := suggest.Closest(key, sortedKeys(kubeletFields())); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
		d.errorf(p, "%s", msg)
		return
	}
	var cfg kubeletv1beta1.KubeletConfiguration
	dec := json.NewDecoder(bytes.NewReader([]byte(`{"` + key + `":` + string(raw) + `}`)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		d.errorf(p, "key %q: %v", key, err)
		return
	}
	d.setConfig(key, raw, p, nil)
}
