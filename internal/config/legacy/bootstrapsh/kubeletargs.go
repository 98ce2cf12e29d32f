package bootstrapsh

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
	"github.com/nodeboot/nodeboot/internal/config/validate"
)

// finding is one problem in --kubelet-extra-args.
type finding struct {
	warning bool
	msg     string
}

func errorFinding(format string, args ...any) finding {
	return finding{msg: fmt.Sprintf(format, args...)}
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
func sortKubeletFlags(flags []kubeletflag.Flag) (kubeletArgs, []finding) {
	var (
		out               kubeletArgs
		findings          []finding
		labels            orderedLabels
		labelsAt, taintAt = -1, -1
		taints            string
		taintCount        int
	)
	for _, f := range flags {
		if (f.Name == "node-labels" || f.Name == "register-with-taints" || f.Name == "max-pods") && !f.HasValue {
			findings = append(findings, errorFinding("--%s needs a value (--%s=…)", f.Name, f.Name))
			continue
		}
		switch f.Name {
		case "node-labels":
			findings = append(findings, labels.add(f.Value)...)
			if labelsAt < 0 {
				labelsAt = len(out.flags)
				out.flags = append(out.flags, "")
			}
		case "register-with-taints":
			findings = append(findings, checkTaints(f.Value)...)
			taints, taintCount = f.Value, taintCount+1
			if taintAt < 0 {
				taintAt = len(out.flags)
				out.flags = append(out.flags, "")
			}
		case "max-pods":
			n, fs := parseMaxPods(f.Value)
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
		if why := kubeletflag.NotOneWord(f); why != "" {
			findings = append(findings, errorFinding("kubelet flag %s %s", shellQuote(f), why))
		}
	}
	return out, findings
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

// add reads one --node-labels value as the kubelet does
// (kubeletflag.SplitPairs) and checks every label.
func (l *orderedLabels) add(value string) []finding {
	var findings []finding
	pairs, malformed := kubeletflag.SplitPairs(value, "=")
	for _, entry := range malformed {
		findings = append(findings, errorFinding("--node-labels entry %s is not key=value", shellQuote(entry)))
	}
	for _, p := range pairs {
		if f, bad := checkLabel(p.Key, p.Value); bad {
			findings = append(findings, f)
			continue
		}
		if l.values == nil {
			l.values = map[string]string{}
		}
		if _, seen := l.values[p.Key]; !seen {
			l.keys = append(l.keys, p.Key)
		}
		l.values[p.Key] = p.Value
	}
	return findings
}

// checkLabel applies the kubelet's checks on --node-labels
// (validate.LabelKeyProblem and friends, shared by every format).
func checkLabel(k, v string) (finding, bool) {
	if why := validate.LabelKeyProblem(k); why != "" {
		return errorFinding("node label key %s is invalid: %s", shellQuote(k), why), true
	}
	if why := validate.LabelValueProblem(v); why != "" {
		return errorFinding("node label %s has an invalid value %s: %s", k, shellQuote(v), why), true
	}
	if why := validate.RestrictedLabelProblem(k); why != "" {
		return errorFinding("node label %s %s", k, why), true
	}
	return finding{}, false
}

// checkTaints applies the kubelet's parsing of --register-with-taints:
// comma-separated key[=value]:Effect; an empty value means no taints.
func checkTaints(value string) []finding {
	if strings.TrimSpace(value) == "" {
		return nil
	}
	var findings []finding
	for _, t := range strings.Split(value, ",") {
		if why := validate.TaintProblem(t); why != "" {
			findings = append(findings, errorFinding("taint %s in --register-with-taints %s", shellQuote(t), why))
		}
	}
	return findings
}
