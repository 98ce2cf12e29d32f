package validate

import (
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
)

// FlagProblems says what is wrong with one kubelet.flags item (after
// kubeletflag.NormalizeItem), in the words the kubelet would refuse it with, or nil.
func FlagProblems(flag string) []string {
	name, value, hasValue := strings.Cut(strings.TrimPrefix(flag, "--"), "=")
	switch {
	case !strings.HasPrefix(flag, "--"):
		return []string{"must start with --, e.g. --node-labels=team=a"}
	case name == "":
		return []string{"has no flag name after --"}
	}
	if why := kubeletflag.NotOneWord(flag); why != "" {
		return []string{why}
	}
	if !hasValue {
		return nil
	}
	switch kubeletflag.Normalize(name) {
	case "node-labels":
		return NodeLabelsProblems(value)
	case "register-with-taints":
		return TaintsProblems(value)
	case "hostname-override":
		if why := HostnameOverrideProblem(value); why != "" {
			return []string{why}
		}
	}
	return nil
}
