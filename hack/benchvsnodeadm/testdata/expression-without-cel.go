// This file replaces internal/config/maxpods/expression.go (through go
// build -overlay) in the "nodeboot without cel-go" build of
// hack/bench-vs-nodeadm.sh: an experiment that measures what linking cel-go
// costs the agent. That build rejects every maxPodsExpression; it is never
// shipped.

package maxpods

import "errors"

// ErrBadExpression is wrapped by every expression error.
var ErrBadExpression = errors.New("invalid max pods expression (this experimental build has no CEL)")

// Names and limits of the real file.
const (
	VarDefaultENIs   = "default_enis"
	VarIPsPerENI     = "ips_per_eni"
	VarMaxPods       = "max_pods"
	MaxExpressionLen = 4096
)

// CheckExpression rejects every expression.
func CheckExpression(string) error { return ErrBadExpression }

func evalExpression(string, int, int, int) (int32, error) { return 0, ErrBadExpression }
