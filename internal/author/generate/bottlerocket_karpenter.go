package generate

// TOMLKind is the TOML type a settings key must have.
type TOMLKind string

// TOML kinds of Karpenter's Bottlerocket model.
const (
	KindString      TOMLKind = "a string"
	KindInteger     TOMLKind = "an integer"
	KindBool        TOMLKind = "a boolean"
	KindStringList  TOMLKind = "an array of strings"
	KindStringTable TOMLKind = "a table of strings"
	KindListTable   TOMLKind = "a table of string arrays"
	KindTable       TOMLKind = "a table"
)

// karpenterSetting is one settings.kubernetes key Karpenter's typed
// Bottlerocket model has.
type karpenterSetting struct {
	key  string
	kind TOMLKind
}

// karpenterKubernetesSettings lists settings.kubernetes as Karpenter models it
// (pkg/providers/amifamily/bootstrap/bottlerocketsettings.go), in its
// order. Karpenter decodes the user's TOML into this model (strictly
// first, only logging unknown keys, then leniently), so a key not listed
// is dropped and a value of another TOML type fails the whole user data.
var karpenterKubernetesSettings = []karpenterSetting{
	{"api-server", KindString}, {"cloud-provider", KindString}, {"cluster-certificate", KindString},
	{"cluster-name", KindString}, {"cluster-dns-ip", KindString}, {"credential-providers", KindTable},
	{"node-labels", KindStringTable}, {"node-taints", KindListTable}, {"max-pods", KindInteger},
	{"static-pods", KindTable}, {"eviction-hard", KindStringTable}, {"eviction-soft", KindStringTable},
	{"eviction-soft-grace-period", KindStringTable}, {"eviction-max-pod-grace-period", KindInteger},
	{"kube-reserved", KindStringTable}, {"system-reserved", KindStringTable},
	{"allowed-unsafe-sysctls", KindStringList}, {"server-tls-bootstrap", KindBool},
	{"registry-qps", KindInteger}, {"registry-burst", KindInteger}, {"event-qps", KindInteger},
	{"event-burst", KindInteger}, {"kube-api-qps", KindInteger}, {"kube-api-burst", KindInteger},
	{"container-log-max-size", KindString}, {"container-log-max-files", KindInteger},
	{"cpu-manager-policy", KindString}, {"cpu-manager-policy-options", KindStringList},
	{"cpu-manager-reconcile-period", KindString}, {"topology-manager-scope", KindString},
	{"topology-manager-policy", KindString}, {"image-gc-high-threshold-percent", KindString},
	{"image-gc-low-threshold-percent", KindString}, {"ids-per-pod", KindInteger},
	{"cpu-cfs-quota-enforced", KindBool}, {"shutdown-grace-period", KindString},
	{"shutdown-grace-period-for-critical-pods", KindString}, {"cluster-domain", KindString},
	{"seccomp-default", KindBool}, {"pod-pids-limit", KindInteger},
	{"device-ownership-from-security-context", KindBool}, {"single-process-oom-kill", KindBool},
	{"container-log-max-workers", KindInteger}, {"container-log-monitor-interval", KindString},
	{"hostname-override-source", KindString}, {"log-level", KindInteger},
}

// KarpenterBottlerocketKind returns the TOML kind Karpenter's model gives a
// settings.kubernetes key, and false for keys Karpenter drops.
func KarpenterBottlerocketKind(key string) (TOMLKind, bool) {
	for _, s := range karpenterKubernetesSettings {
		if s.key == key {
			return s.kind, true
		}
	}
	return "", false
}

// KindOf says whether v, as go-toml decodes it into any, has kind k.
func KindOf(v any, k TOMLKind) bool {
	switch k {
	case KindString:
		_, ok := v.(string)
		return ok
	case KindInteger:
		_, ok := v.(int64)
		return ok
	case KindBool:
		_, ok := v.(bool)
		return ok
	case KindStringList:
		return allOf(v, func(x any) bool { _, ok := x.(string); return ok })
	case KindStringTable, KindListTable, KindTable:
		m, ok := v.(map[string]any)
		if !ok || k == KindTable {
			return ok
		}
		for _, x := range m {
			if k == KindStringTable {
				if _, ok := x.(string); !ok {
					return false
				}
			} else if !KindOf(x, KindStringList) {
				return false
			}
		}
		return true
	}
	return false
}

// allOf reports whether v is an array whose items all satisfy ok.
func allOf(v any, ok func(any) bool) bool {
	items, isList := v.([]any)
	if !isList {
		return false
	}
	for _, x := range items {
		if !ok(x) {
			return false
		}
	}
	return true
}
