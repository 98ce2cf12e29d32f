package validate

import (
	"net/netip"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// Values accepted in spec.instance.localStorage.
var (
	localStorageStrategies = []string{"RAID0", "RAID10", "Mount"}
	disabledMounts         = []string{"Containerd", "PodLogs", "SOCI"}
)

// EnvironmentDefault is the spec.instance.environment key for variables
// every service (and nodeboot itself) sees.
const EnvironmentDefault = "default"

// instanceValues checks the operating system settings.
func instanceValues(in hub.Instance, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, environment(in.Environment, fld.Child("environment"))...)
	errs = append(errs, localStorage(in.LocalStorage, fld.Child("localStorage"))...)
	errs = append(errs, network(in.Network, fld.Child("network"))...)
	return errs
}

// environment checks service keys, variable names and values.
func environment(env map[string]map[string]string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, svc := range sortedKeys(env) {
		if svc != EnvironmentDefault {
			if detail := serviceNameProblem(svc); detail != "" {
				errs = append(errs, field.Invalid(fld.Key(svc), svc, detail))
			}
		}
		errs = append(errs, envVars(env[svc], fld.Key(svc))...)
	}
	return errs
}

// envVars checks one set of environment variables.
func envVars(vars map[string]string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, name := range sortedKeys(vars) {
		if detail := envVarNameProblem(name); detail != "" {
			e := field.Invalid(fld.Key(name), name, detail)
			if name != "" && !strings.ContainsAny(name, "= \t\n\r\x00\"'\\$%") {
				// nodeadm writes it (A-B, 1A), and systemd ignores the
				// assignment: the boot writes it the same, warning.
				e = e.WithOrigin(diag.OriginNodeadmAccepts)
			}
			errs = append(errs, e)
		}
		if strings.ContainsAny(vars[name], "\n\r\x00") {
			errs = append(errs, field.Invalid(fld.Key(name), field.OmitValueType{}, "must not contain a line break or NUL character"))
		}
	}
	return errs
}

// localStorage checks the instance-store settings.
func localStorage(ls hub.LocalStorage, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if ls.Strategy != "" {
		if detail := enumProblem(ls.Strategy, localStorageStrategies); detail != "" {
			e := field.Invalid(fld.Child("strategy"), ls.Strategy, detail)
			if slices.ContainsFunc(localStorageStrategies, func(s string) bool { return strings.EqualFold(s, ls.Strategy) }) {
				// nodeadm lowercases it for setup-local-disks (raid0
				// works there); localdisk matches it the same way.
				e = e.WithOrigin(diag.OriginNodeadmAccepts)
			}
			errs = append(errs, e)
		}
	}
	if ls.MountPath != "" && !path.IsAbs(ls.MountPath) {
		errs = append(errs, field.Invalid(fld.Child("mountPath"), ls.MountPath, "must be an absolute path such as /mnt/k8s-disks"))
	}
	seen := map[string]bool{}
	for i, m := range ls.DisabledMounts {
		p := fld.Child("disabledMounts").Index(i)
		if detail := enumProblem(m, disabledMounts); detail != "" {
			errs = append(errs, field.Invalid(p, m, detail))
		} else if seen[m] {
			errs = append(errs, field.Duplicate(p, m))
		}
		seen[m] = true
	}
	return errs
}

// network checks name resolution settings.
func network(n hub.Network, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, ns := range n.Nameservers {
		if _, err := netip.ParseAddr(ns); err != nil {
			errs = append(errs, field.Invalid(fld.Child("nameservers").Index(i), ns, "must be an IP address such as 10.0.0.2 or fd00::53"))
		}
	}
	for i, d := range n.Domains {
		if d == "" || strings.ContainsAny(d, " \t\n\r") {
			errs = append(errs, field.Invalid(fld.Child("domains").Index(i), d, "must be one non-empty domain without spaces, e.g. corp.internal"))
		}
	}
	return errs
}
