package kubelet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// userConfig is how spec.kubelet.config reaches the kubelet. The kubelet
// merges a drop-in over the base file as a JSON merge patch (RFC 7386,
// kubelet ≥ 1.29), but older versions differ:
//
//   - 1.28 applies its defaults to every drop-in before merging, so a
//     drop-in silently resets base values it does not mention (cgroupDriver
//     to cgroupfs, maxPods to 110, address to 0.0.0.0; seen with a real
//     1.28.15 kubelet in test/kubeletcompat). Below 1.29 nodeboot therefore
//     writes no drop-in and merges the user's values into the base file
//     itself, with the same merge-patch rules.
//   - Before 1.32 a null in a drop-in does not remove the base value (the
//     kubelet then refuses, e.g., reservedSystemCPUs next to the reserved
//     cgroups that bootstrap.sh's --reserved-cpus unsets with null). So
//     nulls never go into the drop-in: they are applied to the base file,
//     which is what every kubelet version reads the same way.
type userConfig struct {
	// dropIn is the drop-in's content without nulls; nil when no drop-in
	// is written.
	dropIn map[string]any
	// patch is merged into the base file: the whole user config when the
	// kubelet gets no drop-in, else only its nulls. nil when empty.
	patch map[string]any
}

// planUserConfig splits spec.kubelet.config between the base file and the
// drop-in for a kubelet with behaviour b.
func planUserConfig(config map[string]json.RawMessage, b behaviour) (userConfig, error) {
	if len(config) == 0 {
		return userConfig{}, nil
	}
	user := make(map[string]any, len(config))
	for _, key := range sortedKeys(config) {
		v, err := decodeExact(config[key])
		if err != nil {
			return userConfig{}, fmt.Errorf("%w: kubelet.config.%s: %w", ErrInvalidKubeletConfig, key, err)
		}
		user[key] = v
	}
	if !b.dropInDir {
		return userConfig{patch: user}, nil
	}
	var uc userConfig
	if nulls := nullsOf(user); len(nulls) > 0 {
		uc.patch = nulls
	}
	// A drop-in (and --config-dir) whenever kubelet.config has a key, as
	// nodeadm writes one: a config of nulls only gets one holding just
	// the type metadata.
	uc.dropIn = withoutNulls(user)
	return uc, nil
}

// applyPatch merges the user config's patch into the encoded base file and
// re-encodes it (keys sorted). Without a patch the bytes are returned as
// they are.
func (uc userConfig) applyPatch(base []byte) ([]byte, error) {
	if len(uc.patch) == 0 {
		return base, nil
	}
	dec := json.NewDecoder(bytes.NewReader(base))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("decode the base kubelet config: %w", err)
	}
	mergePatch(doc, uc.patch)
	return marshalJSON(doc)
}

// mergePatch applies an RFC 7386 JSON merge patch to target in place: null
// removes a key, objects merge key by key, anything else replaces.
func mergePatch(target, patch map[string]any) {
	for k, v := range patch {
		switch pv := v.(type) {
		case nil:
			delete(target, k)
		case map[string]any:
			tv, ok := target[k].(map[string]any)
			if !ok {
				tv = map[string]any{}
				target[k] = tv
			}
			mergePatch(tv, pv)
		default:
			target[k] = v
		}
	}
}

// nullsOf returns the part of a patch that removes values: every null, with
// the objects leading to it.
func nullsOf(patch map[string]any) map[string]any {
	var out map[string]any
	for k, v := range patch {
		var keep any
		switch pv := v.(type) {
		case nil:
			keep = nil
		case map[string]any:
			sub := nullsOf(pv)
			if len(sub) == 0 {
				continue
			}
			keep = sub
		default:
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		out[k] = keep
	}
	return out
}

// withoutNulls returns a patch with every null removed (and objects left
// empty by that dropped).
func withoutNulls(patch map[string]any) map[string]any {
	out := make(map[string]any, len(patch))
	for k, v := range patch {
		switch pv := v.(type) {
		case nil:
		case map[string]any:
			if sub := withoutNulls(pv); len(sub) > 0 || len(pv) == 0 {
				out[k] = sub
			}
		default:
			out[k] = v
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
