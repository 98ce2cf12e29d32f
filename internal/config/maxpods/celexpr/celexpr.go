// Package celexpr compiles and evaluates max pods expressions (nodeadm's
// kubelet.maxPodsExpression) with cel-go. Only package maxpods (in builds
// without the celexec tag) and the nodeboot-cel helper import it: cel-go and
// the protobuf descriptors it registers cost the agent a third of its package
// initialisation and peak memory, so the agent built for nodes (-tags celexec)
// runs nodeboot-cel only when a config has an expression.
//
// Errors do not wrap maxpods.ErrBadExpression (this package cannot import
// maxpods); maxpods wraps them.
package celexpr

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/cost"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
)

// Names of the variables an expression can use (maxpods.VarDefaultENIs etc.).
const (
	varDefaultENIs = "default_enis"
	varIPsPerENI   = "ips_per_eni"
	varMaxPods     = "max_pods"
)

// Resource limits for expressions (user data is untrusted input).
const (
	// MaxLen is the longest expression accepted, in bytes.
	MaxLen = 4096
	// costLimit stops runaway comprehensions during evaluation.
	costLimit = 100_000
	// timeout bounds one evaluation whatever the cost model says.
	timeout = 100 * time.Millisecond
	// parserRecursionLimit bounds nesting depth while parsing.
	parserRecursionLimit = 64
)

// Vars are the values of an expression's variables.
type Vars struct {
	DefaultENIs, IPsPerENI, MaxPods int64
}

// envState holds the CEL environment, built on first use by env and never
// at package init.
var envState struct {
	once sync.Once
	env  *cel.Env
	err  error
}

// env returns the shared CEL environment with the three int variables.
func env() (*cel.Env, error) {
	envState.once.Do(func() {
		envState.env, envState.err = cel.NewEnv(
			cel.ParserRecursionLimit(parserRecursionLimit),
			cel.ParserExpressionSizeLimit(MaxLen),
			cel.Variable(varDefaultENIs, cel.IntType),
			cel.Variable(varIPsPerENI, cel.IntType),
			cel.Variable(varMaxPods, cel.IntType),
		)
	})
	return envState.env, envState.err
}

// compiled is a cached compilation result.
type compiled struct {
	expr string
	prg  cel.Program
}

// lastCompiled caches the last expression that compiled: a node has one,
// which validation checks and max pods then evaluates.
var lastCompiled atomic.Pointer[compiled]

// Check reports whether expr compiles and its static result type can convert
// to an int (int, uint, double, string or dyn, as nodeadm converts the result
// with CEL's int()). It does not evaluate expr.
func Check(expr string) error {
	_, err := program(expr)
	return err
}

// Eval runs expr with vars and returns its value converted like CEL's int()
// does. The caller checks the range.
func Eval(expr string, vars Vars) (int64, error) {
	prg, err := program(expr)
	if err != nil {
		return 0, err
	}
	// A CPU bound, not a cancellation: evaluation is pure and local.
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, _, err := prg.ContextEval(ctx, map[string]any{
		varDefaultENIs: vars.DefaultENIs,
		varIPsPerENI:   vars.IPsPerENI,
		varMaxPods:     vars.MaxPods,
	})
	if err != nil {
		return 0, fmt.Errorf("evaluate: %w", err)
	}
	return toInt(out)
}

// program returns the compiled program of expr, from the cache when it can.
func program(expr string) (cel.Program, error) {
	if c := lastCompiled.Load(); c != nil && c.expr == expr {
		return c.prg, nil
	}
	prg, err := compile(expr)
	if err != nil {
		return nil, err
	}
	lastCompiled.Store(&compiled{expr: expr, prg: prg})
	return prg, nil
}

// compile parses and type-checks expr and returns a runnable program.
func compile(expr string) (cel.Program, error) {
	if len(expr) > MaxLen {
		return nil, fmt.Errorf("%d bytes long, limit %d", len(expr), MaxLen)
	}
	e, err := env()
	if err != nil {
		return nil, fmt.Errorf("cel environment: %w", err)
	}
	ast, issues := e.Compile(expr)
	if issues != nil && issues.Err() != nil {
		return nil, issues.Err()
	}
	if out := ast.OutputType(); !convertibleToInt(out) {
		return nil, fmt.Errorf("result type is %s, want int", out)
	}
	// Refuse before running what evaluation would stop for its cost: a
	// config that boot cannot use must fail config check too.
	cost, err := e.EstimateCost(ast, smallValues{})
	if err != nil {
		return nil, fmt.Errorf("estimate its cost: %w", err)
	}
	if cost.Max > costLimit {
		return nil, fmt.Errorf("evaluating it may cost up to %d, more than the limit of %d (comprehensions over large lists?)", cost.Max, costLimit)
	}
	return e.Program(ast, cel.CostLimit(costLimit), cel.InterruptCheckFrequency(64))
}

// smallValues tells the cost estimator the size of values it cannot work
// out from the expression: here only conversions of the three int
// variables (string(max_pods)), a few characters long.
type smallValues struct{}

// EstimateSize implements cel-go's checker.CostEstimator.
func (smallValues) EstimateSize(cost.AstNode) *cost.SizeEstimate {
	return &cost.SizeEstimate{Min: 0, Max: 64}
}

// EstimateCallCost implements cel-go's checker.CostEstimator: CEL's own estimates.
func (smallValues) EstimateCallCost(string, string, *cost.AstNode, []cost.AstNode) *cost.CallEstimate {
	return nil
}

// convertibleToInt reports whether CEL's int() accepts values of type t in a
// way that makes sense for a count.
func convertibleToInt(t *cel.Type) bool {
	for _, ok := range []*cel.Type{types.IntType, types.UintType, types.DoubleType, types.StringType, types.DynType} {
		if t.IsExactType(ok) {
			return true
		}
	}
	return false
}

// toInt converts an evaluation result like nodeadm does (CEL int()).
func toInt(out ref.Val) (int64, error) {
	converted := out.ConvertToType(types.IntType)
	if types.IsError(converted) {
		return 0, fmt.Errorf("result %v is not an int: %v", out.Value(), converted.Value())
	}
	v, ok := converted.Value().(int64)
	if !ok {
		return 0, fmt.Errorf("result %v is not an int", out.Value())
	}
	return v, nil
}
