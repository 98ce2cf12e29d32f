package maxpods

import (
	"errors"
	"fmt"
	"math"
)

// ErrBadExpression is wrapped by every error about a max pods expression:
// it is too long, does not compile, has a result type that cannot be an int,
// fails to evaluate, evaluates to a value outside (0, MaxInt32], or the
// Evaluator cannot run (the lean agent's helper is missing, or there is
// none: ErrNoEvaluator).
var ErrBadExpression = errors.New("invalid max pods expression")

// Names of the variables a max pods expression can use (nodeadm's
// kubelet.maxPodsExpression contract).
const (
	VarDefaultENIs = "default_enis"
	VarIPsPerENI   = "ips_per_eni"
	VarMaxPods     = "max_pods"
)

// MaxExpressionLen is the longest expression accepted, in bytes.
const MaxExpressionLen = 4096

// CheckExpression reports, with ev, whether expr compiles as a max pods expression
// and its static result type can convert to an int (int, uint, double,
// string or dyn, as nodeadm converts the result with CEL's int()). It does
// not evaluate expr. Errors wrap ErrBadExpression.
func CheckExpression(ev Evaluator, expr string) error {
	if len(expr) > MaxExpressionLen {
		return fmt.Errorf("%w: %d bytes long, limit %d", ErrBadExpression, len(expr), MaxExpressionLen)
	}
	if ev == nil {
		return fmt.Errorf("%w: %w", ErrBadExpression, ErrNoEvaluator)
	}
	if err := ev.Check(expr); err != nil {
		return fmt.Errorf("%w: %w", ErrBadExpression, err)
	}
	return nil
}

// evalExpression runs expr with ev and the given variables and returns its value,
// which must convert to an int in (0, MaxInt32].
func evalExpression(ev Evaluator, expr string, defaultENIs, ipsPerENI, standard int) (int32, error) {
	if len(expr) > MaxExpressionLen {
		return 0, fmt.Errorf("%w: %d bytes long, limit %d", ErrBadExpression, len(expr), MaxExpressionLen)
	}
	if ev == nil {
		return 0, fmt.Errorf("%w: %w", ErrBadExpression, ErrNoEvaluator)
	}
	v, err := ev.Eval(expr, int64(defaultENIs), int64(ipsPerENI), int64(standard))
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrBadExpression, err)
	}
	if v <= 0 || v > math.MaxInt32 {
		return 0, fmt.Errorf("%w: result %d is outside (0, %d]", ErrBadExpression, v, math.MaxInt32)
	}
	return int32(v), nil
}
