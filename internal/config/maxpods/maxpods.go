package maxpods

import (
	"fmt"
	"math"

	"github.com/nodeboot/nodeboot/internal/config/eni"
)

// DefaultMaxPods is the kubelet's default maxPods, used when the instance
// type's network limits are unknown and as the Cap for small nodes.
const DefaultMaxPods = 110

// Recommended ceilings of Policy.Cap (max-pods-calculator.sh).
const (
	capSmallNode     = 110
	capLargeNode     = 250
	capLargeNodeCPUs = 30 // more vCPUs than this use capLargeNode
)

// prefixAddresses is the number of IPv4 addresses in a delegated /28 prefix.
const prefixAddresses = 16

// Values of Result.Source.
const (
	SourceUser       = "user"
	SourceExpression = "expression"
	SourceFormula    = "formula"
	SourceDefault    = "default"
)

// Policy tunes the formula like max-pods-calculator.sh's options.
type Policy struct {
	// PrefixDelegation counts a /28 prefix per secondary IP slot.
	PrefixDelegation bool
	// CustomNetworking leaves the primary ENI out of pod networking.
	CustomNetworking bool
	// Cap applies the recommended ceiling (110, or 250 above 30 vCPUs).
	Cap bool
	// MaxENIs limits the ENIs the CNI uses; 0 or less means no limit.
	MaxENIs int
}

// Input is everything Compute needs.
type Input struct {
	// Limits are the instance type's network limits; used only when Known.
	Limits eni.Limits
	// Known is true when Limits came from the table or EC2.
	Known bool
	// VCPUs is the instance's vCPU count (for Cap); 0 when unknown.
	VCPUs int
	// Policy tunes the formula.
	Policy Policy
	// Expression is kubelet.maxPodsExpression; empty when unset.
	Expression string
	// Evaluator checks and evaluates Expression; needed only with one.
	Evaluator Evaluator
	// UserMaxPods is kubelet.config.maxPods; 0 when unset.
	UserMaxPods int32
}

// Result is the decided maxPods and how it was reached.
type Result struct {
	// MaxPods is the value for the kubelet (and for kubeReserved memory).
	MaxPods int32
	// Standard is ENIs × (IPv4 per ENI − 1) + 2 without policy; 0 when the
	// limits are unknown.
	Standard int32
	// Source is SourceUser, SourceExpression, SourceFormula or SourceDefault.
	Source string
	// Warnings explain ignored settings and fallbacks, for the user.
	Warnings []string
}

// Standard returns the standard max pods of an instance type:
// default-card ENIs × (IPv4 per ENI − 1) + 2.
func Standard(l eni.Limits) int {
	return l.DefaultENIs*(l.IPv4PerENI-1) + 2
}

// Compute decides maxPods (see the package documentation for the rules).
// The Result is always usable. The error is non-nil only when in.Expression
// is bad (it wraps ErrBadExpression); the Result then holds the fallback
// value and a warning, as nodeadm only logs such errors.
func Compute(in Input) (Result, error) {
	res := computeWithoutUser(&in)
	var exprErr error
	if in.Expression != "" {
		exprErr = applyExpression(&res, &in)
	}
	switch {
	case in.UserMaxPods > 0:
		if in.Expression != "" {
			res.warnf("kubelet.config.maxPods %d overrides kubelet.maxPodsExpression", in.UserMaxPods)
		}
		res.MaxPods, res.Source = in.UserMaxPods, SourceUser
	case in.UserMaxPods < 0:
		res.warnf("kubelet.config.maxPods %d is negative; ignored", in.UserMaxPods)
	}
	return res, exprErr
}

// computeWithoutUser returns the formula value, or the default when the
// limits are unknown or unusable.
func computeWithoutUser(in *Input) Result {
	var res Result
	if in.Known && !usableLimits(in.Limits) {
		res.warnf("instance network limits (%d ENIs, %d IPv4 per ENI) are not usable; using the kubelet default %d",
			in.Limits.DefaultENIs, in.Limits.IPv4PerENI, DefaultMaxPods)
	}
	if !in.Known || !usableLimits(in.Limits) {
		res.MaxPods, res.Source = DefaultMaxPods, SourceDefault
		return res
	}
	res.Standard = clampInt32(int64(in.Limits.DefaultENIs)*int64(in.Limits.IPv4PerENI-1) + 2)
	res.MaxPods, res.Source = clampInt32(res.formula(in)), SourceFormula
	return res
}

// usableLimits rejects limits no instance has.
func usableLimits(l eni.Limits) bool {
	return l.DefaultENIs >= 1 && l.IPv4PerENI >= 1
}

// formula applies the policy to the standard formula; it may add warnings.
func (res *Result) formula(in *Input) int64 {
	l, p := in.Limits, in.Policy
	enis := l.DefaultENIs
	if p.MaxENIs > 0 && p.MaxENIs < enis {
		enis = p.MaxENIs
	}
	if p.CustomNetworking {
		enis = max(enis-1, 0)
	}
	podsPerENI := int64(l.IPv4PerENI - 1)
	if p.PrefixDelegation {
		if supportsPrefixDelegation(l) {
			podsPerENI *= prefixAddresses
		} else {
			res.warnf("prefix delegation needs a Nitro instance (hypervisor %q); ignored", l.Hypervisor)
		}
	}
	v := int64(enis)*podsPerENI + 2
	if p.Cap {
		v = min(v, int64(capFor(in.VCPUs)))
	}
	return v
}

// supportsPrefixDelegation follows the VPC CNI: Nitro or bare metal.
func supportsPrefixDelegation(l eni.Limits) bool {
	return l.Hypervisor == eni.HypervisorNitro || l.BareMetal
}

// capFor returns Policy.Cap's ceiling for a vCPU count.
func capFor(vcpus int) int {
	if vcpus > capLargeNodeCPUs {
		return capLargeNode
	}
	return capSmallNode
}

// applyExpression evaluates in.Expression into res when the limits are
// usable; otherwise it only checks it. It returns the expression's error.
func applyExpression(res *Result, in *Input) error {
	if res.Source == SourceDefault {
		err := CheckExpression(in.Evaluator, in.Expression)
		res.warnf("kubelet.maxPodsExpression not evaluated: instance network limits unknown; using %d", res.MaxPods)
		if err != nil {
			res.warnf("%v", err)
		}
		return err
	}
	v, err := evalExpression(in.Evaluator, in.Expression, in.Limits.DefaultENIs, in.Limits.IPv4PerENI, int(res.Standard))
	if err != nil {
		res.warnf("kubelet.maxPodsExpression failed, falling back to %d: %v", res.MaxPods, err)
		return err
	}
	res.MaxPods, res.Source = v, SourceExpression
	return nil
}

// warnf appends a warning.
func (res *Result) warnf(format string, args ...any) {
	res.Warnings = append(res.Warnings, fmt.Sprintf(format, args...))
}

// clampInt32 limits v to [0, MaxInt32].
func clampInt32(v int64) int32 {
	return int32(min(max(v, 0), math.MaxInt32))
}
