package validate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nodeboot/nodeboot/internal/k8sapi/kubeletapis"
	"github.com/nodeboot/nodeboot/internal/k8sapi/validation"

	"github.com/nodeboot/nodeboot/internal/config/validate/suggest"
)

// NodeLabelsProblems checks the value of --node-labels the way the kubelet
// parses and checks it: comma-separated key=value pairs (blanks around
// them trimmed, empty entries skipped), keys qualified names, values valid
// label values, and no key in the kubernetes.io or k8s.io namespaces
// except those a kubelet may set on its own Node (IsKubeletLabel): the
// kubelet refuses to start otherwise.
func NodeLabelsProblems(value string) []string {
	var out []string
	for _, entry := range strings.Split(value, ",") {
		if entry == "" {
			continue
		}
		k, v, ok := strings.Cut(entry, "=")
		if !ok {
			out = append(out, fmt.Sprintf("node label %q is not key=value", clip(entry)))
			continue
		}
		if why := LabelProblem(strings.TrimSpace(k), strings.TrimSpace(v)); why != "" {
			out = append(out, why)
		}
	}
	return out
}

// LabelProblem says what the kubelet would refuse in one node label, or "".
func LabelProblem(key, value string) string {
	if why := LabelKeyProblem(key); why != "" {
		return fmt.Sprintf("node label key %q is invalid: %s", clip(key), why)
	}
	if why := LabelValueProblem(value); why != "" {
		return fmt.Sprintf("node label %s has an invalid value %q: %s", key, clip(value), why)
	}
	if why := RestrictedLabelProblem(key); why != "" {
		return "node label " + key + " " + why
	}
	return ""
}

// LabelKeyProblem says why key is not a label key ([prefix/]name), or "".
func LabelKeyProblem(key string) string {
	return strings.Join(validation.IsQualifiedName(key), "; ")
}

// LabelValueProblem says why value is not a label value, or "".
func LabelValueProblem(value string) string {
	return strings.Join(validation.IsValidLabelValue(value), "; ")
}

// RestrictedLabelProblem says why the kubelet refuses to set the label key
// on its own Node, or "".
func RestrictedLabelProblem(key string) string {
	if !isKubernetesNamespace(key) || IsKubeletLabel(key) {
		return ""
	}
	return "is in the kubernetes.io/k8s.io namespace, where a kubelet may only set node.kubernetes.io/…, kubelet.kubernetes.io/… and a few well-known labels; the kubelet refuses to start with it (set it on the Node after it joins instead)"
}

// isKubernetesNamespace reports a label key whose prefix is kubernetes.io,
// k8s.io or a subdomain of them.
func isKubernetesNamespace(key string) bool {
	return inNamespace(key, "kubernetes.io", "k8s.io")
}

// inNamespace reports whether key's prefix (before "/") is one of
// namespaces or a subdomain of one.
func inNamespace(key string, namespaces ...string) bool {
	ns, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	for _, d := range namespaces {
		if ns == d || strings.HasSuffix(ns, "."+d) {
			return true
		}
	}
	return false
}

// IsKubeletLabel reports whether a kubelet may set the label key on its
// own Node: one of the well-known labels it sets itself, or a key in the
// node.kubernetes.io or kubelet.kubernetes.io namespaces (or their
// subdomains). It is the kubelet's own rule, kept in internal/k8sapi and
// checked against upstream there.
func IsKubeletLabel(key string) bool { return kubeletapis.IsKubeletLabel(key) }

// TaintsProblems checks the value of --register-with-taints the way the
// kubelet parses it and the API server then checks the Node: comma-
// separated key[=value]:Effect, keys qualified names, values valid label
// values, at most one taint per key and effect. An empty value means no
// taints.
func TaintsProblems(value string) []string {
	if strings.TrimSpace(value) == "" {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, t := range strings.Split(value, ",") {
		if why := TaintProblem(t); why != "" {
			out = append(out, fmt.Sprintf("taint %q %s", clip(t), why))
			continue
		}
		kv, effect, _ := strings.Cut(t, ":")
		key, _, _ := strings.Cut(kv, "=")
		if seen[key+":"+effect] {
			out = append(out, fmt.Sprintf("taint %q repeats the key %s with effect %s; the Node would be refused", clip(t), key, effect))
		}
		seen[key+":"+effect] = true
	}
	return out
}

// TaintProblem says what is wrong with one key[=value]:Effect of
// --register-with-taints, or "".
func TaintProblem(t string) string {
	kv, effect, ok := strings.Cut(t, ":")
	switch {
	case !ok:
		return "has no effect: write key=value:NoSchedule (or PreferNoSchedule, NoExecute)"
	case !slices.Contains(taintEffects, effect):
		msg := fmt.Sprintf("has effect %s: must be NoSchedule, PreferNoSchedule or NoExecute", clip(effect))
		if near := suggest.Closest(effect, taintEffects); near != "" {
			msg += fmt.Sprintf("; did you mean %s?", near)
		}
		return msg
	}
	k, v, _ := strings.Cut(kv, "=")
	if why := LabelKeyProblem(k); why != "" {
		return "has an invalid key: " + why
	}
	if strings.Contains(v, "=") {
		return "has more than one ="
	}
	if why := LabelValueProblem(v); why != "" {
		return "has an invalid value: " + why
	}
	return ""
}

// HostnameOverrideProblem checks the value of --hostname-override, the
// name the Node registers under: the kubelet trims and lower-cases it, and
// the API server then requires a DNS subdomain (RFC 1123: at most 253
// characters, labels of a-z, 0-9 and -, joined by dots).
func HostnameOverrideProblem(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" {
		return "--hostname-override is empty; the kubelet refuses to start (leave the flag out to use the EC2 private DNS name)"
	}
	if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
		return fmt.Sprintf("--hostname-override %q is not a valid node name: %s", clip(name), strings.Join(errs, "; "))
	}
	return ""
}
