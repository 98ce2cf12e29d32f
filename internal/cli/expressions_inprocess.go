//go:build !celexec

package cli

import (
	"github.com/nodeboot/nodeboot/internal/config/maxpods"
	"github.com/nodeboot/nodeboot/internal/config/maxpods/celexpr"
)

// newExpressionEvaluator evaluates max pods expressions with cel-go in this
// process (tests, `go install`): the agent built without -tags celexec.
func newExpressionEvaluator() maxpods.Evaluator { return celexpr.Evaluator{} }
