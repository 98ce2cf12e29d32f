package bottlerocket

import (
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/validate"
)

// validate runs the hub value checks every decoder runs (validate.Spec;
// rules across fields, such as a bootstrap token needing the CA, are left
// to validate.Merged because drop-ins may supply the other field) and
// names, in each problem, the setting the field came from.
func (d *decoder) validate() {
	errs := validate.Spec(d.spec)
	for _, p := range diag.FromFieldErrors(d.src, errs, d.positions, diag.SeverityError) {
		if origin, ok := d.originOf(p.Field); ok {
			p.Message = p.Field + ": " + p.Message
			p.Field = origin.String()
		}
		d.problems = append(d.problems, p)
	}
}

// originOf returns the setting that produced hubPath or its nearest
// ancestor.
func (d *decoder) originOf(hubPath string) (keyPath, bool) {
	for path := hubPath; path != ""; path = parentPath(path) {
		if origin, ok := d.origins[path]; ok {
			return origin, true
		}
	}
	return nil, false
}

// parentPath drops the last element of a field path.
func parentPath(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '.' || p[i] == '[' {
			return p[:i]
		}
	}
	return ""
}
