// Package nodeview reads what a node agent left in a node's root the way
// the daemons that consume it read it, and flattens it into one map, so
// that two agents' nodes can be compared for what matters to the node
// rather than for formatting:
//
//   - the kubelet's effective settings: the arguments systemd gives it
//     (kubelet.service's EnvironmentFile and $NODEADM_KUBELET_ARGS), the
//     --config file with every --config-dir drop-in merged over it in
//     lexical order as JSON merge patches (how the kubelet merges them),
//     and flags that set configuration fields winning over both;
//   - the kubeconfig and bootstrap kubeconfig the flags name, the CA files
//     they and the configuration name, the credential provider config;
//   - containerd's config.toml (and the base runtime spec it names);
//   - systemd environment files, resolved and networkd files, lines added
//     to /etc/hosts, and any other file written.
//
// Keys are dotted paths ("kubelet.config.maxPods", "containerd.plugins…");
// values are canonical JSON. Diff compares two views leaf by leaf, taking
// equal durations ("2m" and "2m0s") and quantities ("1Gi", "1024Mi") as
// equal.
package nodeview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// View is a node's state as path → canonical JSON value.
type View map[string]string

// Options say what to leave out of a view.
type Options struct {
	// Ignore are path.Match patterns of node paths ("/var/lib/nodeboot/*")
	// whose files are the agent's private state, not the node's.
	Ignore []string
	// Baseline are files present before the agent ran, path → content:
	// they are reported only when the agent changed them (and /etc/hosts
	// by the lines added).
	Baseline map[string]string
}

// Read reads the node under root.
func Read(root string, o Options) (View, error) {
	r := &reader{root: root, view: View{}, seen: map[string]bool{}, opts: o}
	steps := []func() error{r.kubelet, r.containerd, r.systemdEnv, r.resolved, r.networkd, r.hosts, r.otherFiles}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return r.view, nil
}

type reader struct {
	root string
	view View
	seen map[string]bool // node paths read by a semantic reader
	opts Options
}

// read returns a node file's content and marks it seen; a missing file is
// ("", false, nil).
func (r *reader) read(p string) (string, bool, error) {
	b, err := os.ReadFile(filepath.Join(r.root, p))
	if errorsIsNotExist(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	r.seen[path.Clean(p)] = true
	return string(b), true, nil
}

func errorsIsNotExist(err error) bool { return err != nil && os.IsNotExist(err) }

// put flattens v under prefix into the view.
func (r *reader) put(prefix string, v any) { Flatten(r.view, prefix, v) }

// Flatten stores every leaf of v (decoded JSON) under prefix, as Read does.
func Flatten(view View, prefix string, v any) { flatten(view, prefix, v) }

// flatten stores every leaf of v: objects by key, lists of objects by
// index (and their length), other lists and scalars as canonical JSON. Empty objects and nulls store nothing (a kubelet or
// containerd reads them as absent).
func flatten(view View, prefix string, v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			flatten(view, prefix+"."+k, c)
		}
	case []any:
		if !allObjects(t) {
			view[prefix] = canonical(v)
			return
		}
		view[prefix+".length"] = canonical(len(t))
		for i, c := range t {
			flatten(view, fmt.Sprintf("%s[%d]", prefix, i), c)
		}
	case nil:
	default:
		view[prefix] = canonical(v)
	}
}

// allObjects reports whether a non-empty list holds only objects (then its
// elements are compared field by field).
func allObjects(list []any) bool {
	for _, v := range list {
		if _, ok := v.(map[string]any); !ok {
			return false
		}
	}
	return len(list) > 0
}

// canonical encodes v as JSON with sorted keys and numbers in one form.
func canonical(v any) string {
	b, err := json.Marshal(normalizeNumbers(v))
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

func normalizeNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, c := range t {
			out[k] = normalizeNumbers(c)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, c := range t {
			out[i] = normalizeNumbers(c)
		}
		return out
	case int64:
		return float64(t)
	case int:
		return float64(t)
	case time.Time:
		return t.Format(time.RFC3339Nano)
	}
	return v
}

// decodeJSONOrYAML decodes a JSON or YAML document into generic values.
func decodeJSONOrYAML(data string) (map[string]any, error) {
	var m map[string]any
	if err := yaml.Unmarshal([]byte(data), &m); err != nil {
		return nil, err
	}
	return m, nil
}

func decodeTOML(data string) (map[string]any, error) {
	var m map[string]any
	if err := toml.Unmarshal([]byte(data), &m); err != nil {
		return nil, err
	}
	return m, nil
}

// otherFiles records, by content, every file the semantic readers did not
// read, outside the simulated host's own trees.
func (r *reader) otherFiles() error {
	return filepath.WalkDir(r.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(r.root, p)
		if err != nil {
			return err
		}
		rel = path.Clean("/" + filepath.ToSlash(rel))
		if d.IsDir() {
			switch rel {
			case "/usr", "/dev", "/proc", "/sys", "/tmp", "/var/tmp":
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || r.seen[rel] || r.ignored(rel) {
			return nil // links, devices and pipes are the simulated host's
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if base, ok := r.opts.Baseline[rel]; ok && base == string(b) {
			return nil
		}
		if path.Ext(rel) == ".json" {
			// Read as JSON, as its readers do (a kubelet config that
			// --config no longer names, key order aside).
			r.view["file:"+rel] = Canonical(b)
			return nil
		}
		r.view["file:"+rel] = canonical(string(b))
		return nil
	})
}

func (r *reader) ignored(p string) bool {
	for _, pat := range r.opts.Ignore {
		if ok, _ := path.Match(pat, p); ok {
			return true
		}
		if strings.HasSuffix(pat, "/**") && strings.HasPrefix(p, strings.TrimSuffix(pat, "**")) {
			return true
		}
	}
	return false
}

// Difference is one path whose value differs; an absent side is "".
type Difference struct {
	Path string
	A, B string
}

func (d Difference) String() string {
	var la, lb []any
	if json.Unmarshal([]byte(d.A), &la) == nil && json.Unmarshal([]byte(d.B), &lb) == nil && len(la)+len(lb) > 6 {
		return fmt.Sprintf("%s: lists differ: only nodeadm's %s, only nodeboot's %s, order %s", d.Path,
			canonical(minus(la, lb)), canonical(minus(lb, la)), map[bool]string{true: "differs", false: "same"}[len(minus(la, lb))+len(minus(lb, la)) == 0])
	}
	show := func(s string) string {
		if s == "" {
			return "(absent)"
		}
		if len(s) > 300 {
			return s[:300] + "…"
		}
		return s
	}
	return fmt.Sprintf("%s: %s ≠ %s", d.Path, show(d.A), show(d.B))
}

// Diff returns the paths whose values differ between a and b, sorted.
func Diff(a, b View) []Difference {
	var out []Difference
	for k, va := range a {
		if vb, ok := b[k]; !ok || !equalLeaf(va, vb) {
			out = append(out, Difference{Path: k, A: va, B: b[k]})
		}
	}
	for k, vb := range b {
		if _, ok := a[k]; !ok {
			out = append(out, Difference{Path: k, B: vb})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// equalLeaf compares canonical JSON leaves, durations and quantities by
// value.
func equalLeaf(a, b string) bool {
	if a == b {
		return true
	}
	var sa, sb string
	if json.Unmarshal([]byte(a), &sa) != nil || json.Unmarshal([]byte(b), &sb) != nil {
		return false
	}
	if da, err := time.ParseDuration(sa); err == nil {
		db, err := time.ParseDuration(sb)
		return err == nil && da == db
	}
	qa, errA := resource.ParseQuantity(sa)
	qb, errB := resource.ParseQuantity(sb)
	return errA == nil && errB == nil && qa.Cmp(qb) == 0
}

// Canonical re-encodes a JSON document with sorted keys (for messages).
func Canonical(data []byte) string {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return string(bytes.TrimSpace(data))
	}
	return canonical(v)
}

// minus returns the elements of a not in b.
func minus(a, b []any) []any {
	in := map[string]bool{}
	for _, v := range b {
		in[canonical(v)] = true
	}
	out := []any{}
	for _, v := range a {
		if !in[canonical(v)] {
			out = append(out, v)
		}
	}
	return out
}
