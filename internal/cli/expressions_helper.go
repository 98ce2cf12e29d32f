//go:build celexec

package cli

import (
	"github.com/nodeboot/nodeboot/internal/config/maxpods"
	"github.com/nodeboot/nodeboot/internal/node/celhelper"
)

// newExpressionEvaluator runs the nodeboot-cel helper for max pods
// expressions, so that the agent `make build` builds links no cel-go and
// nodes whose config has no expression never load it (docs/performance.md).
func newExpressionEvaluator() maxpods.Evaluator { return &celhelper.Evaluator{} }
