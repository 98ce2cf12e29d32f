package validate

import (
	"encoding/json"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
	"github.com/nodeboot/nodeboot/internal/config/maxpods"
)

// What kubelet.config may say about its own type.
const (
	kubeletConfigKind       = "KubeletConfiguration"
	kubeletConfigAPIVersion = "kubelet.config.k8s.io/v1beta1"
)

// kubeletValues checks flags, the type of the
// config fragment and the values of its fields the kubelet validates (field
// names and types are checked by the decoder against KubeletConfiguration).
func kubeletValues(k hub.Kubelet, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, f := range k.Flags {
		// Items nodeadm puts on the kubelet's command line as they are,
		// and that work there: several flags in one item, a shorthand.
		accepted := kubeletflag.SeveralFlags(f) != nil || kubeletflag.IsShorthand(f)
		for _, detail := range FlagProblems(f) {
			e := field.Invalid(fld.Child("flags").Index(i), f, detail)
			if accepted {
				e = e.WithOrigin(diag.OriginNodeadmAccepts)
			}
			errs = append(errs, e)
		}
	}
	errs = append(errs, typeMetaValue(k.Config, "kind", kubeletConfigKind, fld.Child("config"))...)
	errs = append(errs, typeMetaValue(k.Config, "apiVersion", kubeletConfigAPIVersion, fld.Child("config"))...)
	errs = append(errs, kubeletConfigValues(k.Config, fld.Child("config"))...)
	return errs
}

// MaxPodsExpression checks kubelet.maxPodsExpression with ev, the
// evaluator the node runs (cel-go, or the lean agent's helper: the caller
// chooses, the core links neither). Decoders cannot run it, so callers run
// it on every decoded document (fragment.CheckExpressions).
func MaxPodsExpression(expr string, ev maxpods.Evaluator) field.ErrorList {
	if expr == "" {
		return nil
	}
	if err := maxpods.CheckExpression(ev, expr); err != nil {
		return field.ErrorList{field.Invalid(specPath.Child("kubelet", "maxPodsExpression"), expr, oneLine(err.Error()))}
	}
	return nil
}

// typeMetaValue checks that config[key], when present, is the string want.
func typeMetaValue(config map[string]json.RawMessage, key, want string, fld *field.Path) field.ErrorList {
	raw, ok := config[key]
	if !ok {
		return nil
	}
	var got string
	if err := json.Unmarshal(raw, &got); err != nil || got != want {
		return field.ErrorList{field.Invalid(fld.Key(key), string(raw), "must be "+want+" when given; remove it to let nodeboot fill it in")}
	}
	return nil
}

// oneLine keeps the message lines of a CEL error and drops the source
// excerpt and caret lines (" | ..."), so the problem prints on one line.
func oneLine(msg string) string {
	var kept []string
	for line := range strings.Lines(msg) {
		line = strings.TrimRight(line, "\n")
		if !strings.HasPrefix(line, " |") && strings.TrimSpace(line) != "" {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "; ")
}
