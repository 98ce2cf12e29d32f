package validate

import (
	"encoding/json"
	"fmt"
	"math"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// configCheck checks the value of one kubelet.config field (never JSON
// null, which means "unset") at fld, spec.kubelet.config[name].
type configCheck func(raw json.RawMessage, fld *field.Path) field.ErrorList

// kubeletConfigChecks are the value rules the kubelet enforces at start-up
// (pkg/kubelet/apis/config/validation and the flag parsers it uses), so that
// config check reports them instead of a kubelet that will not start. Types
// are checked by the decoders against KubeletConfiguration; the checks still
// report a value of the wrong type, for specs built another way.
var kubeletConfigChecks = map[string]configCheck{
	"cgroupDriver":                enumCheck("systemd", "cgroupfs"),
	"cpuManagerPolicy":            enumCheck("none", "static"),
	"topologyManagerPolicy":       enumCheck("none", "best-effort", "restricted", "single-numa-node"),
	"memoryManagerPolicy":         enumCheck("None", "Static"),
	"maxPods":                     intCheck(1, math.MaxInt32, "must be greater than 0"),
	"kubeAPIQPS":                  intCheck(0, math.MaxInt32, "must not be negative"),
	"kubeAPIBurst":                intCheck(0, math.MaxInt32, "must not be negative"),
	"imageGCHighThresholdPercent": intCheck(0, 100, "must be between 0 and 100, inclusive"),
	"imageGCLowThresholdPercent":  intCheck(0, 100, "must be between 0 and 100, inclusive"),
	"tlsMinVersion":               enumCheck(tlsVersionNames...),
	"tlsCipherSuites":             cipherSuitesCheck,
	"registerWithTaints":          taintsCheck,
	"featureGates":                kubeletFeatureGatesCheck,
}

// kubeletConfigValues runs the value rule of every field config sets, then
// the rules between fields of the same fragment.
func kubeletConfigValues(config map[string]json.RawMessage, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, key := range sortedKeys(config) {
		check, ok := kubeletConfigChecks[key]
		if ok && !isNull(config[key]) {
			errs = append(errs, check(config[key], fld.Key(key))...)
		}
	}
	return append(errs, imageGCOrder(config, fld)...)
}

// imageGCOrder checks that the low image GC threshold is below the high
// one when the fragment sets both (with drop-ins, another document may set
// the other one, so a single threshold is not compared to the default).
func imageGCOrder(config map[string]json.RawMessage, fld *field.Path) field.ErrorList {
	var low, high int32
	if json.Unmarshal(config["imageGCLowThresholdPercent"], &low) != nil ||
		json.Unmarshal(config["imageGCHighThresholdPercent"], &high) != nil || low < high {
		return nil
	}
	detail := fmt.Sprintf("must be less than imageGCHighThresholdPercent (%d)", high)
	return field.ErrorList{field.Invalid(fld.Key("imageGCLowThresholdPercent"), low, detail)}
}

// enumCheck accepts one of values, or "" (the kubelet's default).
func enumCheck(values ...string) configCheck {
	return func(raw json.RawMessage, fld *field.Path) field.ErrorList {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return wrongType(raw, fld, "a string")
		}
		if detail := enumProblem(s, values); s != "" && detail != "" {
			return field.ErrorList{field.Invalid(fld, s, detail)}
		}
		return nil
	}
}

// intCheck accepts a 32-bit integer in [lo, hi]; detail says why not.
func intCheck(lo, hi int32, detail string) configCheck {
	return func(raw json.RawMessage, fld *field.Path) field.ErrorList {
		var n int32
		if err := json.Unmarshal(raw, &n); err != nil {
			return wrongType(raw, fld, "a 32-bit integer")
		}
		if n < lo || n > hi {
			return field.ErrorList{field.Invalid(fld, n, detail)}
		}
		return nil
	}
}

// wrongType reports a value that is not of the type the field needs.
func wrongType(raw json.RawMessage, fld *field.Path, want string) field.ErrorList {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		v = string(raw)
	}
	return field.ErrorList{field.Invalid(fld, v, "must be "+want)}
}

// isNull reports whether raw is the JSON null literal.
func isNull(raw json.RawMessage) bool {
	return string(raw) == "null"
}
