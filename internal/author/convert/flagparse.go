package convert

import (
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
)

// splitList splits a,b,c, dropping empty items and blanks around them.
func splitList(text string) []string {
	var out []string
	for _, item := range strings.Split(text, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// parsePairs reads k<sep>v,… into a map, as the kubelet reads a map flag.
func parsePairs(text, sep string) (map[string]string, error) {
	_, out, err := kubeletflag.Pairs([]string{text}, sep)
	return out, err
}
