package maxpods

import "errors"

// Evaluator compiles and evaluates max pods expressions
// (kubelet.maxPodsExpression) with nodeadm's variables. The core does not
// pick one: the CLI's wiring does (cel-go in this process, package celexpr,
// or the lean agent's nodeboot-cel helper, package celhelper), so this
// package never links cel-go or runs a program.
type Evaluator interface {
	// Check compiles expr and reports why it is not a max pods expression.
	Check(expr string) error
	// Eval evaluates expr with the variables default_enis, ips_per_eni and
	// max_pods and returns its value converted with CEL's int().
	Eval(expr string, defaultENIs, ipsPerENI, maxPods int64) (int64, error)
}

// ErrNoEvaluator means an expression had to be checked or evaluated but
// the caller gave no Evaluator: a wiring mistake, reported as a bad
// expression rather than ignored.
var ErrNoEvaluator = errors.New("no max pods expression evaluator configured")
