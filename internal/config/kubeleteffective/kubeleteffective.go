// Package kubeleteffective computes the configuration a kubelet runs with
// from what is on the node: its config file and the drop-ins of its
// --config-dir, merged the way the kubelet merges them (flags are read
// with package kubeletflag). The doctor and the end-to-end suite read
// nodes through it.
package kubeleteffective

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"sigs.k8s.io/yaml"

	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
)

// ErrDropInType means a drop-in does not say it is a KubeletConfiguration
// of kubelet.config.k8s.io/v1beta1; the kubelet refuses to start with it.
var ErrDropInType = errors.New("drop-in is not a kubelet.config.k8s.io/v1beta1 KubeletConfiguration")

// DropIn is one file of the kubelet's --config-dir, already read.
type DropIn struct {
	// Path names the file in errors.
	Path string
	Data []byte
}

// IsDropIn reports whether the kubelet reads a file of its --config-dir:
// a regular file whose name ends in .conf, at any depth (the kubelet walks
// the directory in lexical order, subdirectories included).
func IsDropIn(name string) bool { return path.Ext(name) == ".conf" }

// Merge returns base (the --config file, YAML or JSON) with dropIns
// applied in the order given, as JSON. Each drop-in is a JSON merge patch
// (RFC 7386) over the result so far, as in kubelets 1.29 and later: objects
// merge key by key, lists and scalars are replaced, null removes a key. A
// drop-in must carry apiVersion and kind, as the kubelet requires.
func Merge(base []byte, dropIns []DropIn) ([]byte, error) {
	merged, err := yaml.YAMLToJSON(base)
	if err != nil {
		return nil, fmt.Errorf("kubelet config: %w", err)
	}
	for _, d := range dropIns {
		patch, err := dropInJSON(d)
		if err != nil {
			return nil, err
		}
		if merged, err = jsonpatch.MergePatch(merged, patch); err != nil {
			return nil, fmt.Errorf("merge %s: %w", d.Path, err)
		}
	}
	return merged, nil
}

// dropInJSON reads a drop-in as JSON and checks its type.
func dropInJSON(d DropIn) ([]byte, error) {
	patch, err := yaml.YAMLToJSON(d.Data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Path, err)
	}
	var tm struct{ APIVersion, Kind string }
	if err := yaml.Unmarshal(patch, &tm); err != nil {
		return nil, fmt.Errorf("%s: %w", d.Path, err)
	}
	if tm.APIVersion != "kubelet.config.k8s.io/v1beta1" || tm.Kind != "KubeletConfiguration" {
		return nil, fmt.Errorf("%s: %w (apiVersion %q, kind %q)", d.Path, ErrDropInType, tm.APIVersion, tm.Kind)
	}
	return patch, nil
}

// Read reads the kubelet's config file config and the drop-ins of
// dropInDir (node paths, "" for none) from fsys, the node's root, and
// merges them (Merge). It walks dropInDir as the kubelet does: in lexical
// order, subdirectories included; a missing directory has no drop-ins.
func Read(fsys fs.FS, config, dropInDir string) ([]byte, error) {
	base, err := fs.ReadFile(fsys, rel(config))
	if err != nil {
		return nil, err
	}
	var dropIns []DropIn
	if dropInDir != "" {
		err = fs.WalkDir(fsys, rel(dropInDir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !IsDropIn(d.Name()) {
				return err
			}
			data, err := fs.ReadFile(fsys, p)
			dropIns = append(dropIns, DropIn{Path: "/" + p, Data: data})
			return err
		})
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return Merge(base, dropIns)
}

// rel turns a node path into a path of the root's fs.FS.
func rel(nodePath string) string { return strings.TrimPrefix(path.Clean("/"+nodePath), "/") }

// ApplyFlags sets, in config (JSON, as Merge returns it), every field a
// flag of args stands for, as the kubelet does once it has read its files:
// a flag on the command line wins over the file, and the values of a
// repeated map or list flag, added up, replace the field's. Flags without
// a config field are left to the caller (kubeletflag.Value).
func ApplyFlags(config []byte, args []string) ([]byte, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(config, &doc); err != nil {
		return nil, fmt.Errorf("kubelet config: %w", err)
	}
	if doc == nil {
		doc = map[string]json.RawMessage{}
	}
	flags, _ := kubeletflag.Parse(args)
	for _, form := range kubeletflag.Forms() {
		text, ok := flagText(flags, form)
		if !ok {
			continue
		}
		v, err := kubeletflag.ConfigValue(form, text)
		if err != nil {
			return nil, fmt.Errorf("--%s: %w", form.Flag, err)
		}
		doc[form.Config] = v
	}
	return json.Marshal(doc)
}

// flagText is what the flags of args say for form's field, as one flag
// value: the last value, or every value joined for a map or list flag.
func flagText(flags []kubeletflag.Flag, form kubeletflag.Form) (string, bool) {
	var values []string
	for _, f := range flags {
		if f.Name != form.Flag {
			continue
		}
		v := f.Value
		if !f.HasValue {
			v = "true" // a bare boolean flag
		}
		values = append(values, v)
	}
	switch {
	case len(values) == 0:
		return "", false
	case kubeletflag.Accumulates(form.Flag):
		return strings.Join(values, ","), true
	}
	return values[len(values)-1], true
}
