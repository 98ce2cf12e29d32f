package validate

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// Feature gates nodeboot knows (nodeadm's).
var knownFeatureGates = []string{"FastImagePull", "InstanceIdNodeName"}

// featureGates reports gates nodeboot does not know: nodeadm silently
// treats them as false, which hides typos. The boot does the same after
// warning (OriginNodeadmAccepts); config check and init --strict refuse.
func featureGates(gates map[string]bool, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, g := range sortedKeys(gates) {
		if detail := enumProblem(g, knownFeatureGates); detail != "" {
			errs = append(errs, field.Invalid(fld.Key(g), g, "unknown feature gate: "+detail).WithOrigin(diag.OriginNodeadmAccepts))
		}
	}
	return errs
}
