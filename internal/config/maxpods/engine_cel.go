//go:build !celexec

package maxpods

import "github.com/nodeboot/nodeboot/internal/config/maxpods/celexpr"

// Without the celexec build tag expressions are compiled and evaluated in
// this process with cel-go (tests, cluster-side tools, `go install`).

// engineCheck compiles expr.
func engineCheck(expr string) error { return celexpr.Check(expr) }

// engineEval evaluates req.Expression.
func engineEval(req ExpressionRequest) (int64, error) {
	return celexpr.Eval(req.Expression, celexpr.Vars{
		DefaultENIs: req.DefaultENIs, IPsPerENI: req.IPsPerENI, MaxPods: req.MaxPods,
	})
}
