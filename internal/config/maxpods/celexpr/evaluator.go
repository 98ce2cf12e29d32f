package celexpr

// Evaluator checks and evaluates expressions with cel-go in this process.
// It satisfies maxpods.Evaluator (tests, cluster-side tools, and an agent
// built without -tags celexec).
type Evaluator struct{}

// Check compiles expr (see Check).
func (Evaluator) Check(expr string) error { return Check(expr) }

// Eval evaluates expr with nodeadm's variables (see Eval).
func (Evaluator) Eval(expr string, defaultENIs, ipsPerENI, maxPods int64) (int64, error) {
	return Eval(expr, Vars{DefaultENIs: defaultENIs, IPsPerENI: ipsPerENI, MaxPods: maxPods})
}
