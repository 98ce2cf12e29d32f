package validate

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// specPath is the root of every field path this package reports.
var specPath = field.NewPath("spec")

// Spec checks the value of every field set in spec (one document's worth).
// Empty fields are not errors here; see Merged for completeness.
func Spec(spec hub.Spec) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, clusterValues(spec.Cluster, specPath.Child("cluster"))...)
	errs = append(errs, instanceValues(spec.Instance, specPath.Child("instance"))...)
	errs = append(errs, kubeletValues(spec.Kubelet, specPath.Child("kubelet"))...)
	errs = append(errs, featureGates(spec.FeatureGates, specPath.Child("featureGates"))...)
	errs = append(errs, identityValues(spec.Identity, specPath.Child("identity"))...)
	errs = append(errs, maxPodsValues(spec.MaxPods, specPath.Child("maxPods"))...)
	errs = append(errs, containerdValues(spec.Containerd, specPath.Child("containerd"))...)
	// Rules across fields (outpost needs an id, a bootstrap token needs a
	// CA or a pin) live in Merged only: with drop-ins, the other field may
	// come from another document.
	return errs
}

// maxPodsValues checks the max pods policy.
func maxPodsValues(m hub.MaxPodsPolicy, fld *field.Path) field.ErrorList {
	if m.MaxENIs < 0 {
		return field.ErrorList{field.Invalid(fld.Child("maxENIs"), m.MaxENIs, "must be 0 (no limit) or more")}
	}
	return nil
}
