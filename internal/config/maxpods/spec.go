package maxpods

import (
	"encoding/json"
	"strconv"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
)

// SpecInput is the part of Compute's input a node's merged configuration
// gives: the user's max pods, the policy and the expression. The
// instance's limits, its vCPUs and the evaluator are the caller's. The
// agent sizes a node with it, and the cluster side predicts what a node
// group's user data will give each instance type with it.
func SpecInput(spec hub.Spec) Input {
	user, _ := UserMaxPods(spec)
	return Input{Policy: SpecPolicy(spec.MaxPods), Expression: spec.Kubelet.MaxPodsExpression, UserMaxPods: user}
}

// SpecPolicy is the formula's policy the spec's maxPods settings select.
func SpecPolicy(p hub.MaxPodsPolicy) Policy {
	is := func(b *bool) bool { return b != nil && *b }
	return Policy{PrefixDelegation: is(p.PrefixDelegation), CustomNetworking: is(p.CustomNetworking), Cap: is(p.Cap), MaxENIs: p.MaxENIs}
}

// UserMaxPods returns the max pods the user fixed: a --max-pods kubelet
// flag (flags override the config file, the last one wins), else
// kubelet.config.maxPods. A value that is not a positive integer fixes
// nothing (validation reports it).
func UserMaxPods(spec hub.Spec) (int32, bool) {
	if v, _ := kubeletflag.Value(spec.Kubelet.Flags, "max-pods"); v != "" {
		n, err := strconv.ParseInt(v, 10, 32)
		if err == nil && n > 0 {
			return int32(n), true
		}
	}
	raw, ok := spec.Kubelet.Config["maxPods"]
	if !ok {
		return 0, false
	}
	var n int32
	if err := json.Unmarshal(raw, &n); err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// Effective is the pod count the kubelet really runs with, which
// kube-reserved must be sized for: the user's value, else the computed
// one when it is written, else the kubelet's default (bootstrap.sh
// --use-max-pods false without --max-pods).
func Effective(spec hub.Spec, res Result) int32 {
	if _, user := UserMaxPods(spec); user {
		return res.MaxPods
	}
	if spec.MaxPods.Set != nil && !*spec.MaxPods.Set {
		return DefaultMaxPods
	}
	return res.MaxPods
}
