package bootstrapsh

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/nodeboot/nodeboot/internal/k8sapi/kubeletapis"
	"github.com/nodeboot/nodeboot/internal/k8sapi/validation"
)

// kubeletFlag is one flag of --kubelet-extra-args.
type kubeletFlag struct {
	name     string
	value    string
	hasValue bool
}

// String renders the flag as --name=value (or --name).
func (f kubeletFlag) String() string {
	if f.hasValue {
		return "--" + f.name + "=" + f.value
	}
	return "--" + f.name
}

// finding is one problem in --kubelet-extra-args.
type finding struct {
	warning bool
	msg     string
}

func errorFinding(format string, args ...any) finding {
	return finding{msg: fmt.Sprintf(format, args...)}
}

// readKubeletFlags turns words into flags the way the kubelet's flag
// parser (pflag) does: --name=value, --name value (except for boolean
// flags) and -v N. Anything else is a stray argument, which the kubelet
// refuses.
func readKubeletFlags(words []string) ([]kubeletFlag, []finding) {
	var (
		flags    []kubeletFlag
		findings []finding
	)
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "--":
			findings = append(findings, errorFinding("`--` ends the kubelet's flags, and the kubelet refuses the arguments after it"))
		case strings.HasPrefix(w, "--"):
			f, used, fs := readLongFlag(words, i)
			findings = append(findings, fs...)
			if f.name != "" {
				flags = append(flags, f)
			}
			i = used
		case w == "-v" && i+1 < len(words):
			flags = append(flags, kubeletFlag{name: "v", value: words[i+1], hasValue: true})
			i++
		case w == "-v":
			findings = append(findings, errorFinding("-v needs a value (-v=2)"))
		case strings.HasPrefix(w, "-v") && len(w) > 2:
			flags = append(flags, kubeletFlag{name: "v", value: strings.TrimPrefix(w[2:], "="), hasValue: true})
		case strings.HasPrefix(w, "-") && len(w) > 1:
			findings = append(findings, errorFinding("the kubelet has no short flag %s (only -v); write flags as --name=value", shellQuote(w)))
		default:
			findings = append(findings, errorFinding("stray argument %s: the kubelet accepts no arguments besides flags and refuses to start (a value split from its flag, or a misplaced quote?)", shellQuote(w)))
		}
	}
	return flags, findings
}

// readLongFlag reads the flag at words[i] and returns the index of the
// last word it used.
func readLongFlag(words []string, i int) (kubeletFlag, int, []finding) {
	name, value, hasValue := strings.Cut(words[i][2:], "=")
	if name == "" {
		return kubeletFlag{}, i, []finding{errorFinding("%s has no flag name", shellQuote(words[i]))}
	}
	f := kubeletFlag{name: name, value: value, hasValue: hasValue}
	if hasValue || i+1 >= len(words) || strings.HasPrefix(words[i+1], "-") {
		return f, i, nil
	}
	next := words[i+1]
	if kubeletBoolFlags[name] {
		if next == "true" || next == "false" {
			return f, i + 1, []finding{errorFinding("--%s is a boolean flag: write --%s=%s (the kubelet would take %s as a stray argument and refuse to start)", name, name, next, next)}
		}
		return f, i, nil
	}
	f.value, f.hasValue = next, true
	return f, i + 1, nil
}

// kubeletArgs is what --kubelet-extra-args sets, by destination.
type kubeletArgs struct {
	flags      []string
	maxPods    int64
	hasMaxPods bool
}

// sortKubeletFlags sends --max-pods to the kubelet config, merges every
// --node-labels into one flag (the kubelet accumulates them), keeps the
// last --register-with-taints (the kubelet keeps only that one) and every
// other flag verbatim, in order.
func sortKubeletFlags(flags []kubeletFlag) (kubeletArgs, []finding) {
	var (
		out               kubeletArgs
		findings          []finding
		labels            orderedLabels
		labelsAt, taintAt = -1, -1
		taints            string
		taintCount        int
	)
	for _, f := range flags {
		if (f.name == "node-labels" || f.name == "register-with-taints" || f.name == "max-pods") && !f.hasValue {
			findings = append(findings, errorFinding("--%s needs a value (--%s=…)", f.name, f.name))
			continue
		}
		switch f.name {
		case "node-labels":
			findings = append(findings, labels.add(f.value)...)
			if labelsAt < 0 {
				labelsAt = len(out.flags)
				out.flags = append(out.flags, "")
			}
		case "register-with-taints":
			findings = append(findings, checkTaints(f.value)...)
			taints, taintCount = f.value, taintCount+1
			if taintAt < 0 {
				taintAt = len(out.flags)
				out.flags = append(out.flags, "")
			}
		case "max-pods":
			n, fs := parseMaxPods(f.value)
			findings = append(findings, fs...)
			if n > 0 {
				out.maxPods, out.hasMaxPods = n, true
			}
		default:
			out.flags = append(out.flags, f.String())
		}
	}
	if taintCount > 1 {
		findings = append(findings, finding{warning: true, msg: fmt.Sprintf("--register-with-taints is given %d times; the kubelet keeps only the last one (%s), and so does nodeboot", taintCount, shellQuote(taints))})
	}
	if labelsAt >= 0 && len(labels.keys) > 0 {
		out.flags[labelsAt] = "--node-labels=" + labels.String()
	}
	if taintAt >= 0 && strings.TrimSpace(taints) != "" {
		out.flags[taintAt] = "--register-with-taints=" + taints
	}
	out.flags = slices.DeleteFunc(out.flags, func(s string) bool { return s == "" })
	for _, f := range out.flags {
		if why := unrepresentable(f); why != "" {
			findings = append(findings, errorFinding("kubelet flag %s contains %s, which cannot pass through the kubelet's systemd environment file", shellQuote(f), why))
		}
	}
	return out, findings
}

// unrepresentable says why a flag cannot be one word of the kubelet's
// command line, or "".
func unrepresentable(f string) string {
	for _, r := range f {
		switch {
		case unicode.IsSpace(r):
			return "whitespace"
		case unicode.IsControl(r):
			return "a control character"
		case strings.ContainsRune(`"'\`, r):
			return fmt.Sprintf("%q", r)
		}
	}
	return ""
}

// parseMaxPods reads --max-pods as the kubelet does (an int32 in Go
// syntax, so 0x1d is 29).
func parseMaxPods(s string) (int64, []finding) {
	n, err := strconv.ParseInt(s, 0, 32)
	switch {
	case err != nil:
		return 0, []finding{errorFinding("--max-pods=%s is not a whole number", shellQuote(s))}
	case n < 1:
		return 0, []finding{errorFinding("--max-pods=%s must be at least 1", shellQuote(s))}
	case strconv.FormatInt(n, 10) != s:
		return n, []finding{{warning: true, msg: fmt.Sprintf("--max-pods=%s is read by the kubelet as %d", s, n)}}
	}
	return n, nil
}

// orderedLabels accumulates node labels: keys in first-seen order, the
// last value of a key wins (the kubelet's map flag).
type orderedLabels struct {
	keys   []string
	values map[string]string
}

// String renders the labels as k=v pairs joined by commas, in first-seen order.
func (l *orderedLabels) String() string {
	pairs := make([]string, len(l.keys))
	for i, k := range l.keys {
		pairs[i] = k + "=" + l.values[k]
	}
	return strings.Join(pairs, ",")
}

// add reads one --node-labels value: comma-separated key=value pairs,
// blanks around them trimmed, empty entries skipped.
func (l *orderedLabels) add(value string) []finding {
	var findings []finding
	for _, entry := range strings.Split(value, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		k, v, ok := strings.Cut(entry, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok {
			findings = append(findings, errorFinding("--node-labels entry %s is not key=value", shellQuote(entry)))
			continue
		}
		if f, bad := checkLabel(k, v); bad {
			findings = append(findings, f)
			continue
		}
		if l.values == nil {
			l.values = map[string]string{}
		}
		if _, seen := l.values[k]; !seen {
			l.keys = append(l.keys, k)
		}
		l.values[k] = v
	}
	return findings
}

// checkLabel applies the kubelet's checks on --node-labels.
func checkLabel(k, v string) (finding, bool) {
	if errs := validation.IsQualifiedName(k); len(errs) > 0 {
		return errorFinding("node label key %s is invalid: %s", shellQuote(k), strings.Join(errs, "; ")), true
	}
	if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
		return errorFinding("node label %s has an invalid value %s: %s", k, shellQuote(v), strings.Join(errs, "; ")), true
	}
	if isKubernetesNamespace(k) && !kubeletapis.IsKubeletLabel(k) {
		return errorFinding("node label %s is in the kubernetes.io/k8s.io namespace, where a kubelet may only set node.kubernetes.io/…, kubelet.kubernetes.io/… and a few well-known labels; the kubelet refuses to start with it (set it on the Node after it joins instead)", k), true
	}
	return finding{}, false
}

func isKubernetesNamespace(key string) bool {
	ns, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	for _, d := range []string{"kubernetes.io", "k8s.io"} {
		if ns == d || strings.HasSuffix(ns, "."+d) {
			return true
		}
	}
	return false
}

// taintEffects are the effects a taint may have.
var taintEffects = []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}

// checkTaints applies the kubelet's parsing of --register-with-taints:
// comma-separated key[=value]:Effect; an empty value means no taints.
func checkTaints(value string) []finding {
	if strings.TrimSpace(value) == "" {
		return nil
	}
	var findings []finding
	for _, t := range strings.Split(value, ",") {
		if why := taintProblem(t); why != "" {
			findings = append(findings, errorFinding("taint %s in --register-with-taints %s", shellQuote(t), why))
		}
	}
	return findings
}

func taintProblem(t string) string {
	kv, effect, ok := strings.Cut(t, ":")
	if !ok {
		return "has no effect: write key=value:NoSchedule (or PreferNoSchedule, NoExecute)"
	}
	if !slices.Contains(taintEffects, effect) {
		return fmt.Sprintf("has effect %s: must be NoSchedule, PreferNoSchedule or NoExecute", shellQuote(effect))
	}
	k, v, _ := strings.Cut(kv, "=")
	if errs := validation.IsQualifiedName(k); len(errs) > 0 {
		return "has an invalid key: " + strings.Join(errs, "; ")
	}
	if strings.Contains(v, "=") {
		return "has more than one ="
	}
	if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
		return "has an invalid value: " + strings.Join(errs, "; ")
	}
	return ""
}
