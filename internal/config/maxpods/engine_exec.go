//go:build celexec

package maxpods

import "sync/atomic"

// With the celexec build tag (how `make build` builds the node agent) cel-go
// is not linked: expressions go to the nodeboot-cel helper, which the agent
// runs only when a config has an expression.

// lastChecked is the last expression the helper accepted: validation checks
// a node's one expression, then max pods evaluates it.
var lastChecked atomic.Pointer[string]

// engineCheck compiles expr in the helper.
func engineCheck(expr string) error {
	if p := lastChecked.Load(); p != nil && *p == expr {
		return nil
	}
	h, err := FindHelper()
	if err != nil {
		return err
	}
	if _, err := h.Run(ExpressionRequest{Expression: expr}); err != nil {
		return err
	}
	lastChecked.Store(&expr)
	return nil
}

// engineEval evaluates req.Expression in the helper.
func engineEval(req ExpressionRequest) (int64, error) {
	h, err := FindHelper()
	if err != nil {
		return 0, err
	}
	return h.Run(req)
}
