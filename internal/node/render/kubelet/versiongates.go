package kubelet

import (
	"fmt"
	"strconv"
	"strings"
)

// behaviour is everything about the rendered files that depends on the
// kubelet version. It is computed from versionGates only.
type behaviour struct {
	// featureGates are added to the base config's featureGates.
	featureGates map[string]bool
	// gracefulShutdown sets shutdownGracePeriod and
	// shutdownGracePeriodCriticalPods (graceful node shutdown).
	gracefulShutdown bool
	// dropInDir means the kubelet merges --config-dir drop-ins over the base
	// file as a JSON merge patch; without it kubelet.config is merged into
	// the base file (see userConfig).
	dropInDir bool
	// dropInAlphaEnv means --config-dir only works with the environment
	// variable KUBELET_CONFIG_DROPIN_DIR_ALPHA=on.
	dropInAlphaEnv bool
	// gpuPresentLabel labels NVIDIA nodes nvidia.com/gpu.present=true.
	gpuPresentLabel bool
	// raisedAPIRate sets kubeAPIQPS 10 and kubeAPIBurst 20 in the base
	// config, above the kubelet's defaults of 5 and 10 before 1.27.
	raisedAPIRate bool
}

// versionGate turns on part of behaviour for kubelet minor versions
// 1.from ≤ v < 1.until (until 0 means no upper bound).
type versionGate struct {
	from, until uint
	set         func(*behaviour)
}

// versionGates is the whole kubelet-version behaviour table (nodeadm's, see
// nodeadm-behavior.md §5.2 and §5.7). Keep it sorted by from.
var versionGates = []versionGate{
	// The AL2 bootstrap.sh, to its last version, raises the kubelet's API
	// rate for 1.22 ≤ v < 1.27 (API Priority and Fairness; 1.27 raised the
	// defaults to 50/100), as nodeadm did before it dropped those kubelets
	// (legacy-formats.md A.6, A.10).
	{from: 22, until: 27, set: func(b *behaviour) { b.raisedAPIRate = true }},
	// --config-dir appeared in 1.28 as alpha, but 1.28 applies its defaults
	// to each drop-in, which then override the base file (test/kubeletcompat
	// shows it with a real 1.28 kubelet); 1.29 merges drop-ins as they are,
	// still behind an environment variable, on by default from 1.30.
	{from: 29, set: func(b *behaviour) { b.dropInDir = true }},
	{from: 29, until: 30, set: func(b *behaviour) { b.dropInAlphaEnv = true }},
	{from: 33, set: enableFeatureGate("DynamicResourceAllocation")},
	{from: 34, set: enableFeatureGate("MutableCSINodeAllocatableCount")},
	{from: 34, set: func(b *behaviour) { b.gracefulShutdown = true }},
	{from: 35, set: func(b *behaviour) { b.gpuPresentLabel = true }},
}

func enableFeatureGate(name string) func(*behaviour) {
	return func(b *behaviour) {
		if b.featureGates == nil {
			b.featureGates = map[string]bool{}
		}
		b.featureGates[name] = true
	}
}

// behaviourFor applies every gate whose range contains minor (Kubernetes 1.minor).
func behaviourFor(minor uint) behaviour {
	var b behaviour
	for _, g := range versionGates {
		if minor >= g.from && (g.until == 0 || minor < g.until) {
			g.set(&b)
		}
	}
	return b
}

// kubeletMinor returns the minor version of a Kubernetes 1.x kubelet version
// such as "v1.34.4" or "v1.35.0-eks-1f2e3d" (pre-release and build suffixes
// are ignored, so v1.33.0-eks counts as 1.33).
func kubeletMinor(kubeletVersion string) (uint, error) {
	if kubeletVersion == "" {
		return 0, ErrMissingKubeletVersion
	}
	numbers, ok := versionNumbers(kubeletVersion)
	if !ok || len(numbers) < 2 || numbers[0] != 1 {
		return 0, fmt.Errorf("%w: %q", ErrInvalidKubeletVersion, kubeletVersion)
	}
	return numbers[1], nil
}

// versionNumbers reads a version as apimachinery's version.ParseGeneric
// does (without its regular expressions, compiled at package
// initialisation): optional leading white space and "v", then dot-separated
// numbers, then anything but a line break. ok is false without two numbers,
// when the first has a leading zero or when one overflows.
func versionNumbers(s string) (numbers []uint, ok bool) {
	s = strings.TrimLeft(s, " \t\n\f\r")
	s = strings.TrimPrefix(s, "v")
	if len(s) > 1 && s[0] == '0' && '0' <= s[1] && s[1] <= '9' {
		return nil, false
	}
	for {
		end := 0
		for end < len(s) && '0' <= s[end] && s[end] <= '9' {
			end++
		}
		if end == 0 {
			break
		}
		n, err := strconv.ParseUint(s[:end], 10, 0)
		if err != nil {
			return nil, false
		}
		numbers = append(numbers, uint(n))
		s = s[end:]
		if len(s) < 2 || s[0] != '.' || s[1] < '0' || s[1] > '9' {
			break
		}
		s = s[1:]
	}
	return numbers, len(numbers) >= 2 && !strings.Contains(s, "\n")
}
