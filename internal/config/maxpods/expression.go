package maxpods

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// ErrBadExpression is wrapped by every error about a max pods expression:
// it is too long, does not compile, has a result type that cannot be an int,
// fails to evaluate, or evaluates to a value outside (0, MaxInt32].
var ErrBadExpression = errors.New("invalid max pods expression")

// Names of the variables a max pods expression can use (nodeadm's
// kubelet.maxPodsExpression contract).
const (
	VarDefaultENIs = "default_enis"
	VarIPsPerENI   = "ips_per_eni"
	VarMaxPods     = "max_pods"
)

// Resource limits for expressions (user data is untrusted input).
const (
	// MaxExpressionLen is the longest expression accepted, in bytes.
	MaxExpressionLen = 4096
	// expressionCostLimit stops runaway comprehensions during evaluation.
	expressionCostLimit = 100_000
	// expressionTimeout bounds one evaluation whatever the cost model says.
	expressionTimeout = 100 * time.Millisecond
	// parserRecursionLimit bounds nesting depth while parsing.
	parserRecursionLimit = 64
)

// envState holds the CEL environment, built on first use by celEnv and
// never at package init.
var envState struct {
	once sync.Once
	env  *cel.Env
	err  error
}

// celEnv returns the shared CEL environment with the three int variables.
func celEnv() (*cel.Env, error) {
	envState.once.Do(func() {
		envState.env, envState.err = cel.NewEnv(
			cel.ParserRecursionLimit(parserRecursionLimit),
			cel.ParserExpressionSizeLimit(MaxExpressionLen),
			cel.Variable(VarDefaultENIs, cel.IntType),
			cel.Variable(VarIPsPerENI, cel.IntType),
			cel.Variable(VarMaxPods, cel.IntType),
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
// which validation checks and Compute then evaluates.
var lastCompiled atomic.Pointer[compiled]

// CheckExpression reports whether expr compiles as a max pods expression
// and its static result type can convert to an int (int, uint, double,
// string or dyn, as nodeadm converts the result with CEL's int()). It does
// not evaluate expr. Errors wrap ErrBadExpression.
func CheckExpression(expr string) error {
	_, err := program(expr)
	return err
}

// program returns the compiled program of expr, from the cache when it can.
func program(expr string) (cel.Program, error) {
	if c := lastCompiled.Load(); c != nil && c.expr == expr {
		return c.prg, nil
	}
	prg, err := compileExpression(expr)
	if err != nil {
		return nil, err
	}
	lastCompiled.Store(&compiled{expr: expr, prg: prg})
	return prg, nil
}

// compileExpression parses and type-checks expr and returns a runnable
// program.
func compileExpression(expr string) (cel.Program, error) {
	if len(expr) > MaxExpressionLen {
		return nil, fmt.Errorf("%w: %d bytes long, limit %d", ErrBadExpression, len(expr), MaxExpressionLen)
	}
	env, err := celEnv()
	if err != nil {
		return nil, fmt.Errorf("%w: cel environment: %w", ErrBadExpression, err)
	}
	ast, issues := env.Compile(expr)
	if issues != nil && issues.Err() != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadExpression, issues.Err())
	}
	if out := ast.OutputType(); !convertibleToInt(out) {
		return nil, fmt.Errorf("%w: result type is %s, want int", ErrBadExpression, out)
	}
	// Refuse before running what evaluation would stop for its cost: a
	// config that boot cannot use must fail config check too.
	cost, err := env.EstimateCost(ast, smallValues{})
	if err != nil {
		return nil, fmt.Errorf("%w: estimate its cost: %w", ErrBadExpression, err)
	}
	if cost.Max > expressionCostLimit {
		return nil, fmt.Errorf("%w: evaluating it may cost up to %d, more than the limit of %d (comprehensions over large lists?)", ErrBadExpression, cost.Max, expressionCostLimit)
	}
	prg, err := env.Program(ast, cel.CostLimit(expressionCostLimit), cel.InterruptCheckFrequency(64))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadExpression, err)
	}
	return prg, nil
}

// smallValues tells the cost estimator the size of values it cannot work
// out from the expression: here only conversions of the three int
// variables (string(max_pods)), a few characters long.
type smallValues struct{}

// EstimateSize implements checker.CostEstimator.
func (smallValues) EstimateSize(checker.AstNode) *checker.SizeEstimate {
	return &checker.SizeEstimate{Min: 0, Max: 64}
}

// EstimateCallCost implements checker.CostEstimator: CEL's own estimates.
func (smallValues) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
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

// evalExpression runs expr with the given variables and returns its value,
// which must convert to an int in (0, MaxInt32].
func evalExpression(expr string, defaultENIs, ipsPerENI, standard int) (int32, error) {
	prg, err := program(expr)
	if err != nil {
		return 0, err
	}
	// A CPU bound, not a cancellation: evaluation is pure and local.
	ctx, cancel := context.WithTimeout(context.Background(), expressionTimeout)
	defer cancel()
	out, _, err := prg.ContextEval(ctx, map[string]any{
		VarDefaultENIs: int64(defaultENIs),
		VarIPsPerENI:   int64(ipsPerENI),
		VarMaxPods:     int64(standard),
	})
	if err != nil {
		return 0, fmt.Errorf("%w: evaluate: %w", ErrBadExpression, err)
	}
	return resultToInt32(out)
}

// resultToInt32 converts an evaluation result like nodeadm does (CEL int())
// and checks the range.
func resultToInt32(out ref.Val) (int32, error) {
	converted := out.ConvertToType(types.IntType)
	if types.IsError(converted) {
		return 0, fmt.Errorf("%w: result %v is not an int: %v", ErrBadExpression, out.Value(), converted.Value())
	}
	v, ok := converted.Value().(int64)
	if !ok {
		return 0, fmt.Errorf("%w: result %v is not an int", ErrBadExpression, out.Value())
	}
	if v <= 0 || v > math.MaxInt32 {
		return 0, fmt.Errorf("%w: result %d is outside (0, %d]", ErrBadExpression, v, math.MaxInt32)
	}
	return int32(v), nil
}
