package nodetest

import (
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// OnlyNodeadmAccepted reports whether a `config check` report has errors
// and every one is marked diag.StrictOnlyMark: input nodeadm accepts,
// which init boots with a warning.
func OnlyNodeadmAccepted(report string) bool {
	errors := 0
	for _, line := range strings.Split(report, "\n") {
		if strings.HasPrefix(line, "error: ") {
			if !strings.HasSuffix(line, diag.StrictOnlyMark) {
				return false
			}
			errors++
		}
	}
	return errors > 0
}
