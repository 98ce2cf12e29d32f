package cli

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// absoluteSources rewrites nodeadm's relative form of a file source,
// file://config.yaml (nodeadm reads host and path joined, relative to its
// working directory; its own e2e cases use it), into file:///abs/path.
// Under --root other than /, the working directory must lie inside the
// root, whose "/" it is then taken from. Other sources pass unchanged.
func absoluteSources(sources []string, root string, getwd func() (string, error)) ([]string, error) {
	out := make([]string, len(sources))
	for i, s := range sources {
		u, err := url.Parse(s)
		if err != nil || !strings.EqualFold(u.Scheme, "file") || u.Host == "" {
			out[i] = s
			continue
		}
		if getwd == nil {
			getwd = os.Getwd
		}
		cwd, err := getwd()
		if err != nil {
			return nil, fmt.Errorf("config source %q is relative to the working directory: %w", s, err)
		}
		abs := filepath.Join(cwd, u.Host+u.Path)
		if root != "" && filepath.Clean(root) != "/" {
			rel, err := filepath.Rel(root, abs)
			if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
				return nil, fmt.Errorf("%w: config source %q is relative to the working directory %s, which is outside --root %s; use file:///path", ErrUsage, s, cwd, root)
			}
			abs = "/" + rel
		}
		out[i] = (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	}
	return out, nil
}
