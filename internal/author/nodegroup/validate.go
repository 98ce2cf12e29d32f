package nodegroup

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/nodeboot/nodeboot/internal/k8sapi/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1alpha1 "github.com/nodeboot/nodeboot/api/nodegroup/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/config/awsauth"
	"github.com/nodeboot/nodeboot/internal/config/legacy/bottlerocket"
	"github.com/nodeboot/nodeboot/internal/config/validate"
)

type fieldErrors = field.ErrorList

// maxNameLength is the longest node group name EKS accepts (and a label
// value may hold).
const maxNameLength = 63

// dedicatedKubeletFields are kubelet settings the NodeGroup has its own
// field for, which the producers write themselves.
var dedicatedKubeletFields = map[string]string{
	"maxPods":            "spec.maxPods.value",
	"registerWithTaints": "spec.taints",
	"clusterDNS":         "spec.cluster.cidr (the cluster DNS address is derived from the service CIDR)",
}

// dedicatedKubeletFlags are kubelet flags the NodeGroup has a field for.
var dedicatedKubeletFlags = map[string]string{
	"--node-labels":          "spec.labels",
	"--register-with-taints": "spec.taints",
	"--max-pods":             "spec.maxPods.value",
	"--cluster-dns":          "spec.cluster.cidr",
}

// validateGroup checks every value of a decoded NodeGroup.
func validateGroup(g v1alpha1.NodeGroup) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, groupName(g.Metadata.Name, field.NewPath("metadata", "name"))...)
	spec, fld := g.Spec, field.NewPath("spec")
	errs = append(errs, validate.Spec(Hub(spec))...)
	if spec.Cluster.Name == "" {
		errs = append(errs, field.Required(fld.Child("cluster", "name"), "the EKS cluster name"))
	} else if problem := bottlerocket.ClusterNameProblem(spec.Cluster.Name); problem != "" {
		errs = append(errs, field.Invalid(fld.Child("cluster", "name"), spec.Cluster.Name, problem))
	}
	if spec.ImageID != "" && !isAWSID(spec.ImageID, "ami-") {
		errs = append(errs, field.Invalid(fld.Child("imageId"), spec.ImageID, "must be an AMI ID: ami- and 8 or 17 hexadecimal digits"))
	}
	if c := spec.CapacityType; c != "" && c != v1alpha1.CapacityOnDemand && c != v1alpha1.CapacitySpot {
		errs = append(errs, field.NotSupported(fld.Child("capacityType"), c, []string{v1alpha1.CapacityOnDemand, v1alpha1.CapacitySpot}))
	}
	errs = append(errs, launchTemplate(spec.LaunchTemplate, fld.Child("launchTemplate"))...)
	if spec.NodeRole != "" {
		if _, err := awsauth.ParseRoleARN(spec.NodeRole); err != nil {
			errs = append(errs, field.Invalid(fld.Child("nodeRole"), spec.NodeRole, err.Error()))
		}
	}
	errs = append(errs, labels(spec.Labels, fld.Child("labels"))...)
	errs = append(errs, taints(spec.Taints, fld.Child("taints"))...)
	errs = append(errs, maxPods(spec.MaxPods, fld.Child("maxPods"))...)
	errs = append(errs, kubeletExtras(spec.Kubelet, fld.Child("kubelet"))...)
	return errs
}

// groupName checks metadata.name: EKS node group names are 1 to 63
// letters, digits, - and _, starting with a letter or digit; the producers
// also write it as a label value.
func groupName(name string, fld *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fld, "the node group name")}
	}
	valid := len(name) <= maxNameLength && isAlnum(name[0]) && strings.IndexFunc(name, func(r rune) bool {
		return !(r < 0x80 && (isAlnum(byte(r)) || r == '-' || r == '_'))
	}) < 0 && len(validation.IsValidLabelValue(name)) == 0
	if !valid {
		return field.ErrorList{field.Invalid(fld, name, "must be 1 to 63 letters, digits, - and _, starting and ending with a letter or digit")}
	}
	return nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// isAWSID reports whether id is prefix followed by 8 or 17 lower-case
// hexadecimal digits (ami-…, lt-…).
func isAWSID(id, prefix string) bool {
	hex, ok := strings.CutPrefix(id, prefix)
	if !ok || (len(hex) != 8 && len(hex) != 17) {
		return false
	}
	return strings.IndexFunc(hex, func(r rune) bool { return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') }) < 0
}

func launchTemplate(lt *v1alpha1.LaunchTemplate, fld *field.Path) field.ErrorList {
	if lt == nil {
		return nil
	}
	var errs field.ErrorList
	if !isAWSID(lt.ID, "lt-") {
		errs = append(errs, field.Invalid(fld.Child("id"), lt.ID, "must be a launch template ID: lt- and 8 or 17 hexadecimal digits"))
	}
	v := lt.Version
	if v == "" || v[0] == '0' || strings.IndexFunc(v, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		errs = append(errs, field.Invalid(fld.Child("version"), v, "must be a launch template version number (1, 2, …); EKS labels nodes with the number, never $Latest or $Default"))
	}
	return errs
}

// labels applies the kubelet's checks on --node-labels.
func labels(m map[string]string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if problem := validate.LabelProblem(k, m[k]); problem != "" {
			errs = append(errs, field.Invalid(fld.Key(k), m[k], problem))
		}
	}
	return errs
}

var effects = []string{v1alpha1.EffectNoSchedule, v1alpha1.EffectPreferNoSchedule, v1alpha1.EffectNoExecute}

// taints applies the kubelet's checks on --register-with-taints, which
// refuses two taints with the same key and effect.
func taints(ts []v1alpha1.Taint, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]int{}
	for i, t := range ts {
		p := fld.Index(i)
		if es := validation.IsQualifiedName(t.Key); len(es) > 0 {
			errs = append(errs, field.Invalid(p.Child("key"), t.Key, strings.Join(es, "; ")))
		}
		if es := validation.IsValidLabelValue(t.Value); len(es) > 0 {
			errs = append(errs, field.Invalid(p.Child("value"), t.Value, strings.Join(es, "; ")))
		}
		if !slices.Contains(effects, t.Effect) {
			errs = append(errs, field.NotSupported(p.Child("effect"), t.Effect, effects))
		}
		id := t.Key + ":" + t.Effect
		if first, dup := seen[id]; dup {
			errs = append(errs, field.Invalid(p, id, fmt.Sprintf("taints[%d] has the same key and effect; the kubelet refuses both", first)))
		}
		seen[id] = i
	}
	return errs
}

func maxPods(m v1alpha1.MaxPods, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if m.Value < 0 {
		errs = append(errs, field.Invalid(fld.Child("value"), m.Value, "must be 1 or more (or left out)"))
	}
	if m.MaxENIs < 0 {
		errs = append(errs, field.Invalid(fld.Child("maxENIs"), m.MaxENIs, "must be 0 (no limit) or more"))
	}
	return errs
}

// kubeletExtras refuses kubelet settings that have their own NodeGroup field.
func kubeletExtras(k v1alpha1.Kubelet, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, key := range slices.Sorted(maps.Keys(k.Config)) {
		if use, ok := dedicatedKubeletFields[key]; ok {
			errs = append(errs, field.Forbidden(fld.Child("config").Key(key), "set "+use+" instead: the producers write this setting themselves"))
		}
	}
	for i, flag := range k.Flags {
		name, _, _ := strings.Cut(flag, "=")
		if use, ok := dedicatedKubeletFlags[name]; ok {
			errs = append(errs, field.Forbidden(fld.Child("flags").Index(i), "set "+use+" instead: the producers write "+name+" themselves"))
		}
	}
	return errs
}
