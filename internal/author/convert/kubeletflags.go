package convert

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// errNoFlagForm is returned when a kubelet config value has no flag spelling.
var errNoFlagForm = errors.New("no kubelet flag spelling")

// flagKind is the shape of a kubelet flag's value.
type flagKind int

const (
	kindScalar         flagKind = iota // --max-pods=110
	kindList                           // --cluster-dns=a,b
	kindPairs                          // --kube-reserved=cpu=100m,memory=1Gi
	kindThresholds                     // --eviction-hard=memory.available<100Mi
	kindTaints                         // --register-with-taints=k=v:NoSchedule
	kindReservedMemory                 // --reserved-memory=0:memory=1Gi;1:memory=2Gi
)

// flagForm is how a KubeletConfiguration field is spelled as a kubelet flag.
type flagForm struct {
	config string
	flag   string
	kind   flagKind
	// linuxOnly marks settings the Windows kubelet does not have.
	linuxOnly bool
}

// format renders a JSON value (as decodeJSON reads it) as the flag value.
func (f flagForm) format(v any) (string, error) {
	switch f.kind {
	case kindList:
		return listFlag(v)
	case kindPairs:
		return pairsFlag("=")(v)
	case kindThresholds:
		return pairsFlag("<")(v)
	case kindTaints:
		return taintsFlag(v)
	case kindReservedMemory:
		return reservedMemoryFlag(v)
	default:
		return scalarFlag(v)
	}
}

// kubeletFlagForms lists the config fields with a kubelet flag, in the
// order their flags are written.
var kubeletFlagForms = []flagForm{
	{config: "maxPods", flag: "max-pods", kind: kindScalar},
	{config: "podsPerCore", flag: "pods-per-core", kind: kindScalar},
	{config: "clusterDomain", flag: "cluster-domain", kind: kindScalar},
	{config: "clusterDNS", flag: "cluster-dns", kind: kindList},
	{config: "kubeReserved", flag: "kube-reserved", kind: kindPairs},
	{config: "systemReserved", flag: "system-reserved", kind: kindPairs},
	{config: "kubeReservedCgroup", flag: "kube-reserved-cgroup", kind: kindScalar, linuxOnly: true},
	{config: "systemReservedCgroup", flag: "system-reserved-cgroup", kind: kindScalar, linuxOnly: true},
	{config: "enforceNodeAllocatable", flag: "enforce-node-allocatable", kind: kindList},
	{config: "evictionHard", flag: "eviction-hard", kind: kindThresholds},
	{config: "evictionSoft", flag: "eviction-soft", kind: kindThresholds},
	{config: "evictionSoftGracePeriod", flag: "eviction-soft-grace-period", kind: kindPairs},
	{config: "evictionMinimumReclaim", flag: "eviction-minimum-reclaim", kind: kindPairs},
	{config: "evictionMaxPodGracePeriod", flag: "eviction-max-pod-grace-period", kind: kindScalar},
	{config: "evictionPressureTransitionPeriod", flag: "eviction-pressure-transition-period", kind: kindScalar},
	{config: "imageGCHighThresholdPercent", flag: "image-gc-high-threshold", kind: kindScalar},
	{config: "imageGCLowThresholdPercent", flag: "image-gc-low-threshold", kind: kindScalar},
	{config: "imageMinimumGCAge", flag: "minimum-image-ttl-duration", kind: kindScalar},
	{config: "registryPullQPS", flag: "registry-qps", kind: kindScalar},
	{config: "registryBurst", flag: "registry-burst", kind: kindScalar},
	{config: "eventRecordQPS", flag: "event-qps", kind: kindScalar},
	{config: "eventBurst", flag: "event-burst", kind: kindScalar},
	{config: "kubeAPIQPS", flag: "kube-api-qps", kind: kindScalar},
	{config: "kubeAPIBurst", flag: "kube-api-burst", kind: kindScalar},
	{config: "serializeImagePulls", flag: "serialize-image-pulls", kind: kindScalar},
	{config: "containerLogMaxSize", flag: "container-log-max-size", kind: kindScalar},
	{config: "containerLogMaxFiles", flag: "container-log-max-files", kind: kindScalar},
	{config: "nodeStatusUpdateFrequency", flag: "node-status-update-frequency", kind: kindScalar},
	{config: "providerID", flag: "provider-id", kind: kindScalar},
	{config: "serverTLSBootstrap", flag: "rotate-server-certificates", kind: kindScalar},
	{config: "rotateCertificates", flag: "rotate-certificates", kind: kindScalar},
	{config: "featureGates", flag: "feature-gates", kind: kindPairs},
	{config: "registerWithTaints", flag: "register-with-taints", kind: kindTaints},
	{config: "cpuCFSQuota", flag: "cpu-cfs-quota", kind: kindScalar, linuxOnly: true},
	{config: "cpuCFSQuotaPeriod", flag: "cpu-cfs-quota-period", kind: kindScalar, linuxOnly: true},
	{config: "cpuManagerPolicy", flag: "cpu-manager-policy", kind: kindScalar, linuxOnly: true},
	{config: "cpuManagerPolicyOptions", flag: "cpu-manager-policy-options", kind: kindPairs, linuxOnly: true},
	{config: "cpuManagerReconcilePeriod", flag: "cpu-manager-reconcile-period", kind: kindScalar, linuxOnly: true},
	{config: "topologyManagerPolicy", flag: "topology-manager-policy", kind: kindScalar, linuxOnly: true},
	{config: "topologyManagerScope", flag: "topology-manager-scope", kind: kindScalar, linuxOnly: true},
	{config: "topologyManagerPolicyOptions", flag: "topology-manager-policy-options", kind: kindPairs, linuxOnly: true},
	{config: "memoryManagerPolicy", flag: "memory-manager-policy", kind: kindScalar, linuxOnly: true},
	{config: "reservedMemory", flag: "reserved-memory", kind: kindReservedMemory, linuxOnly: true},
	{config: "reservedSystemCPUs", flag: "reserved-cpus", kind: kindScalar, linuxOnly: true},
	{config: "podPidsLimit", flag: "pod-max-pids", kind: kindScalar, linuxOnly: true},
	{config: "allowedUnsafeSysctls", flag: "allowed-unsafe-sysctls", kind: kindList, linuxOnly: true},
	{config: "seccompDefault", flag: "seccomp-default", kind: kindScalar, linuxOnly: true},
	{config: "protectKernelDefaults", flag: "protect-kernel-defaults", kind: kindScalar, linuxOnly: true},
	{config: "failSwapOn", flag: "fail-swap-on", kind: kindScalar, linuxOnly: true},
}

// flagFormFor returns the flag spelling of a config field.
func flagFormFor(config string) (flagForm, bool) {
	i := slices.IndexFunc(kubeletFlagForms, func(f flagForm) bool { return f.config == config })
	if i < 0 {
		return flagForm{}, false
	}
	return kubeletFlagForms[i], true
}

// decodeJSON reads raw with numbers kept as json.Number.
func decodeJSON(raw json.RawMessage) (any, error) {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid JSON %s: %w", clipBytes(raw), err)
	}
	return v, nil
}

// scalarText renders a JSON scalar as flag text.
func scalarText(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	case bool:
		return strconv.FormatBool(x), nil
	}
	return "", fmt.Errorf("%w: expected a single value", errNoFlagForm)
}

func scalarFlag(v any) (string, error) { return scalarText(v) }

// listFlag renders a list as a,b,c.
func listFlag(v any) (string, error) {
	items, ok := v.([]any)
	if !ok {
		return "", fmt.Errorf("%w: expected a list", errNoFlagForm)
	}
	parts := make([]string, len(items))
	for i, item := range items {
		s, err := scalarText(item)
		if err != nil {
			return "", err
		}
		parts[i] = s
	}
	return strings.Join(parts, ","), nil
}

// pairsFlag renders an object as k<sep>v,… with keys sorted (the kubelet's
// map flags: --kube-reserved=cpu=100m, --eviction-hard=memory.available<100Mi).
func pairsFlag(sep string) func(v any) (string, error) {
	return func(v any) (string, error) {
		obj, ok := v.(map[string]any)
		if !ok {
			return "", fmt.Errorf("%w: expected an object", errNoFlagForm)
		}
		parts := make([]string, 0, len(obj))
		for _, k := range sortedKeys(obj) {
			s, err := scalarText(obj[k])
			if err != nil {
				return "", err
			}
			parts = append(parts, k+sep+s)
		}
		return strings.Join(parts, ","), nil
	}
}

// taintsFlag renders registerWithTaints as key=value:Effect,…
func taintsFlag(v any) (string, error) {
	items, ok := v.([]any)
	if !ok {
		return "", fmt.Errorf("%w: expected a list of taints", errNoFlagForm)
	}
	parts := make([]string, len(items))
	for i, item := range items {
		t, ok := item.(map[string]any)
		key, _ := t["key"].(string)
		value, _ := t["value"].(string)
		effect, _ := t["effect"].(string)
		if !ok || key == "" || effect == "" {
			return "", fmt.Errorf("%w: taint %d needs key and effect", errNoFlagForm, i)
		}
		parts[i] = taintText(key, value, effect)
	}
	return strings.Join(parts, ","), nil
}

// taintText is one --register-with-taints item.
func taintText(key, value, effect string) string {
	if value == "" {
		return key + ":" + effect
	}
	return key + "=" + value + ":" + effect
}

// reservedMemoryFlag renders reservedMemory as 0:memory=1Gi,hugepages-2Mi=64Mi;1:memory=2Gi.
func reservedMemoryFlag(v any) (string, error) {
	items, ok := v.([]any)
	if !ok {
		return "", fmt.Errorf("%w: expected a list", errNoFlagForm)
	}
	parts := make([]string, len(items))
	for i, item := range items {
		r, ok := item.(map[string]any)
		if !ok {
			return "", fmt.Errorf("%w: item %d is not an object", errNoFlagForm, i)
		}
		node, err := scalarText(r["numaNode"])
		if err != nil {
			return "", err
		}
		limits, err := pairsFlag("=")(r["limits"])
		if err != nil {
			return "", err
		}
		parts[i] = node + ":" + limits
	}
	return strings.Join(parts, ";"), nil
}

// configFlag renders one config field as --flag=value.
func configFlag(form flagForm, raw json.RawMessage) (string, error) {
	v, err := decodeJSON(raw)
	if err != nil {
		return "", err
	}
	value, err := form.format(v)
	if err != nil {
		return "", err
	}
	return "--" + form.flag + "=" + value, nil
}

// unsafeFlagChars cannot appear in a kubelet argument: the bootstrap
// scripts split the arguments on whitespace, and bootstrap.sh writes them
// into a quoted systemd Environment= line.
const unsafeFlagChars = " \t\r\n'\"\\`$"

// flagTextProblem says why a kubelet argument cannot be carried, or "".
// A % is allowed unless a letter or % follows it, which systemd would read
// as a specifier (eviction thresholds such as nodefs.available<10% pass).
func flagTextProblem(arg string) string {
	if i := strings.IndexAny(arg, unsafeFlagChars); i >= 0 {
		return fmt.Sprintf("contains %q, which cannot be passed through the bootstrap script's kubelet arguments", arg[i])
	}
	for i := strings.IndexByte(arg, '%'); i >= 0 && i+1 < len(arg); i = nextPercent(arg, i) {
		if c := arg[i+1]; c == '%' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return fmt.Sprintf("contains %q, which systemd would expand as a specifier", arg[i:i+2])
		}
	}
	return ""
}

// nextPercent returns the index of the next % after i, or -1.
func nextPercent(s string, i int) int {
	j := strings.IndexByte(s[i+1:], '%')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}
