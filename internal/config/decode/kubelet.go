package decode

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	yaml "sigs.k8s.io/yaml/goyaml.v3"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/validate/suggest"
	kubeletv1beta1 "github.com/nodeboot/nodeboot/internal/k8sapi/kubeletconfig/v1beta1"
	"github.com/nodeboot/nodeboot/internal/k8sapi/resource"
)

// kubeletConfigType is what spec.kubelet.config is checked against.
var kubeletConfigType = reflect.TypeFor[kubeletv1beta1.KubeletConfiguration]()

// kubeletConfig decodes spec.kubelet.config: each top-level key must be a
// KubeletConfiguration field (kind and apiVersion included) and its value
// must fit that field; the value is kept as the JSON the user wrote.
// JSON null is allowed anywhere inside, where it means "unset".
func (w *walker) kubeletConfig(n *yaml.Node, path string, v reflect.Value) {
	if !w.expectKind(n, path, yaml.MappingNode, v.Type()) {
		return
	}
	fields := fieldsOf(kubeletConfigType)
	config := make(map[string]json.RawMessage, len(n.Content)/2)
	w.nullable++
	defer func() { w.nullable-- }()
	w.eachPair(n, path, keyPath, func(key string, kn, vn *yaml.Node) {
		before := len(w.problems)
		if f, ok := fields.byName[key]; ok {
			w.value(vn, keyPath(path, key), reflect.New(f.typ).Elem())
		} else {
			w.unknownField(kn, path, keyPath(path, key), key, fields)
		}
		if !diag.Relax(w.problems[before:]).HasErrors() {
			// nodeadm hands the kubelet every key as written, fields
			// newer than this schema included: so does the boot, after
			// warning (StrictOnly problems).
			config[key] = w.quietJSON(vn)
		}
	})
	v.Set(reflect.ValueOf(config))
}

// evictionSignals are the signals the kubelet accepts in evictionHard,
// evictionSoft and evictionMinimumReclaim (pkg/kubelet/eviction/api).
var evictionSignals = []string{
	"allocatableMemory.available", "containerfs.available", "containerfs.inodesFree",
	"imagefs.available", "imagefs.inodesFree", "memory.available",
	"nodefs.available", "nodefs.inodesFree", "pid.available",
}

// quantityMap returns a hook for a KubeletConfiguration map[string]string
// whose values the kubelet parses as quantities (kubeReserved) or, for
// eviction thresholds, as quantities or percentages keyed by known
// signals. Checking them here turns a kubelet that fails at boot into an
// error in config check.
func quantityMap(eviction bool) hook {
	return func(w *walker, n *yaml.Node, path string, v reflect.Value) {
		w.mapping(n, path, v)
		for _, key := range slices.Sorted(maps.Keys(v.Interface().(map[string]string))) {
			p := keyPath(path, key)
			if w.failed[p] {
				continue
			}
			detail := quantityProblem(v.MapIndex(reflect.ValueOf(key)).String(), eviction)
			if eviction && !slices.Contains(evictionSignals, key) {
				detail = signalProblem(key)
			}
			if detail != "" {
				w.failed[p] = true
				w.problems.Errorf(w.src, p, w.positions[p], "%s", detail)
			}
		}
	}
}

// signalProblem explains an unknown eviction signal.
func signalProblem(signal string) string {
	msg := fmt.Sprintf("unknown eviction signal %q", signal)
	if near := suggest.Closest(signal, evictionSignals); near != "" {
		return msg + fmt.Sprintf("; did you mean %q?", near)
	}
	return msg + "; known signals: " + strings.Join(evictionSignals, ", ")
}

// quantityProblem says what is wrong with a kubelet resource amount, or "".
func quantityProblem(s string, percentOK bool) string {
	if pct, ok := strings.CutSuffix(s, "%"); ok && percentOK {
		if f, err := strconv.ParseFloat(pct, 64); err != nil || f < 0 || f > 100 {
			return fmt.Sprintf("invalid percentage %q; write it like 10%%", s)
		}
		return ""
	}
	q, err := resource.ParseQuantity(s)
	switch {
	case err != nil && percentOK:
		return fmt.Sprintf(`invalid amount %q; write a quantity like "100Mi" or a percentage like "10%%"`, s)
	case err != nil:
		return fmt.Sprintf(`invalid quantity %q; write it like "100Mi", "1Gi" or "500m"`, s)
	case q.Sign() < 0:
		return fmt.Sprintf("%q is negative", s)
	}
	return ""
}
