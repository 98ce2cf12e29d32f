package validate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/validate/suggest"
	"github.com/nodeboot/nodeboot/internal/lazyregexp"
)

var (
	// envVarName is a POSIX-portable environment variable name.
	envVarName = lazyregexp.New(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// unitNamePrefix is a systemd unit name without its ".service" suffix
	// (letters, digits, ":-_.\" and "@" for template instances).
	unitNamePrefix = lazyregexp.New(`^[A-Za-z0-9:_.\\-]+(@[A-Za-z0-9:_.\\-]*)?$`)
)

// maxUnitName is systemd's limit on a unit name, suffix included.
const maxUnitName = 255

// envVarNameProblem says what is wrong with an environment variable name, or "".
func envVarNameProblem(name string) string {
	if envVarName.MatchString(name) {
		return ""
	}
	return "is not a valid environment variable name; use letters, digits and _ and do not start with a digit"
}

// serviceNameProblem says what is wrong with a systemd service name used as
// an environment key, or "".
func serviceNameProblem(name string) string {
	switch {
	case strings.HasSuffix(name, ".service"):
		return fmt.Sprintf("give the service name without .service (%q); it is added when the drop-in is written", strings.TrimSuffix(name, ".service"))
	case !unitNamePrefix.MatchString(name):
		return `is not a systemd service name; use "default" for all services, or a name like kubelet or containerd`
	case len(name)+len(".service") > maxUnitName:
		return fmt.Sprintf("is longer than systemd allows for a unit name (%d characters with .service)", maxUnitName)
	}
	return ""
}

// enumProblem says what is wrong with value when it must be one of known,
// with a "did you mean" hint, or "" when it is known.
func enumProblem(value string, known []string) string {
	if slices.Contains(known, value) {
		return ""
	}
	detail := "must be one of " + strings.Join(known, ", ")
	if s := suggest.Closest(value, known); s != "" {
		detail += fmt.Sprintf("; did you mean %s?", s)
	}
	return detail
}
