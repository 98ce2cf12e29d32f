package validate

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeboot/nodeboot/internal/config/validate/suggest"
	"github.com/nodeboot/nodeboot/internal/k8sapi/validation"
	"github.com/nodeboot/nodeboot/internal/lazyregexp"
)

// tlsVersionNames are the tlsMinVersion values the kubelet accepts.
var tlsVersionNames = []string{"VersionTLS10", "VersionTLS11", "VersionTLS12", "VersionTLS13"}

// cipherSuiteNames lists the tlsCipherSuites names the kubelet accepts:
// every suite crypto/tls implements, secure or not, plus the two names the
// ChaCha20 suites had before Go 1.14 (the kubelet keeps them as aliases).
var cipherSuiteNames = sync.OnceValue(func() []string {
	names := []string{"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305"}
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	return names
})

// cipherSuitesCheck checks every tlsCipherSuites entry by name.
func cipherSuitesCheck(raw json.RawMessage, fld *field.Path) field.ErrorList {
	var suites []string
	if err := json.Unmarshal(raw, &suites); err != nil {
		return wrongType(raw, fld, "a list of cipher suite names")
	}
	var errs field.ErrorList
	for i, s := range suites {
		if _, known := slices.BinarySearch(cipherSuiteNames(), s); known {
			continue
		}
		detail := "is not a TLS cipher suite the kubelet knows (names as in Go's crypto/tls, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)"
		if near := suggest.Closest(s, cipherSuiteNames()); near != "" {
			detail += fmt.Sprintf("; did you mean %s?", near)
		}
		errs = append(errs, field.Invalid(fld.Index(i), s, detail))
	}
	return errs
}

// taintEffects are the effects a node taint may have.
var taintEffects = []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}

// configTaint is one registerWithTaints entry.
type configTaint struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Effect string `json:"effect"`
}

// taintsCheck checks registerWithTaints as the kubelet and the API server
// check node taints: a qualified-name key, a label-value value and a
// known effect.
func taintsCheck(raw json.RawMessage, fld *field.Path) field.ErrorList {
	var taints []configTaint
	if err := json.Unmarshal(raw, &taints); err != nil {
		return wrongType(raw, fld, "a list of taints (key, value, effect)")
	}
	var errs field.ErrorList
	for i, t := range taints {
		item := fld.Index(i)
		if problems := validation.IsQualifiedName(t.Key); len(problems) > 0 {
			errs = append(errs, field.Invalid(item.Child("key"), t.Key, strings.Join(problems, "; ")))
		}
		if problems := validation.IsValidLabelValue(t.Value); t.Value != "" && len(problems) > 0 {
			errs = append(errs, field.Invalid(item.Child("value"), t.Value, strings.Join(problems, "; ")))
		}
		switch detail := enumProblem(t.Effect, taintEffects); {
		case t.Effect == "":
			errs = append(errs, field.Required(item.Child("effect"), "must be one of "+strings.Join(taintEffects, ", ")))
		case detail != "":
			errs = append(errs, field.Invalid(item.Child("effect"), t.Effect, detail))
		}
	}
	return errs
}

// featureGateName is the shape of Kubernetes feature gate names
// (CamelCase: GracefulNodeShutdown, AllAlpha). The kubelet's list depends
// on its version, so names are only checked for their shape.
var featureGateName = lazyregexp.New(`^[A-Z][A-Za-z0-9]*$`)

// kubeletFeatureGatesCheck checks the kubelet's featureGates: CamelCase
// names with true or false.
func kubeletFeatureGatesCheck(raw json.RawMessage, fld *field.Path) field.ErrorList {
	var gates map[string]json.RawMessage
	if err := json.Unmarshal(raw, &gates); err != nil {
		return wrongType(raw, fld, "a map of feature gate names to true or false")
	}
	var errs field.ErrorList
	for _, name := range sortedKeys(gates) {
		if !featureGateName.MatchString(name) {
			errs = append(errs, field.Invalid(fld.Key(name), name, "is not a feature gate name: gates are CamelCase letters and digits, like GracefulNodeShutdown"))
			continue
		}
		var on bool
		if json.Unmarshal(gates[name], &on) != nil {
			errs = append(errs, wrongType(gates[name], fld.Key(name), "true or false")...)
		}
	}
	return errs
}
